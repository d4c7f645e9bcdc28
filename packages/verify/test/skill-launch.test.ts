import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core';
import { readExitFile, readPidFile } from '@leap/supervise';
import { cleanupTempDirs, hostileTitles, isAlive, repoRoot, runCommand, waitFor } from '@leap/test-utils';
import { TEST_CMD, makeGreen, makeRedRepo, verifyEnv, writeAgents, writeScript } from './helpers.js';

const S = join(repoRoot, 'scripts');

// The skill's verifier launch, as the seed's conductor writes it (three lines, one shell each).
function launchLines(phase: string): string[] {
  return [
    `rm -f .tdd/verdict-${phase}.exit .tdd/verdict-${phase}.pid`,
    `VERI_TEST_CMD='${TEST_CMD}' VERI_ISSUE=3 VERI_STEP="$(cat .tdd/issue-3.md | "$S"/ledger-steps.sh current)" "$S"/detach-leaf.sh "$S"/supervise.sh verdict-${phase} "$S"/run-verdict.sh --step "$(cat .tdd/issue-3.md | "$S"/ledger-steps.sh current-or-last-done)" ${phase} > .tdd/verify-${phase}.reason 2> .tdd/verify-${phase}.err`,
    `"$S"/wait-leaf.sh verdict-${phase}`,
  ];
}

async function runLines(repo: string, env: NodeJS.ProcessEnv, lines: string[]): Promise<number | null> {
  let code: number | null = null;
  for (const line of lines) {
    const ran = await runCommand('bash', ['-c', line], { cwd: repo, env: { ...env, S } });
    code = ran.code;
  }
  return code;
}

const launch = suite('skill verifier launch line');
launch.after.each(cleanupTempDirs);

launch(
  'detach-leaf.sh supervise.sh verdict-PHASE run-verdict.sh --step "$(...)" PHASE, then wait-leaf.sh returns the verdict',
  async () => {
    // Never skipped: a missing script fails the test and names it.
    for (const script of ['detach-leaf.sh', 'supervise.sh', 'wait-leaf.sh', 'ledger-steps.sh', 'run-verdict.sh']) {
      assert.ok(existsSync(join(S, script)), `scripts/${script} is missing: the skill's launch line cannot run`);
    }
    const title = hostileTitles(3, 31)[1] as string;
    const repo = makeRedRepo();
    writeFileSync(join(repo, '.tdd', 'issue-3.md'), `# Issue 3\n\n## Steps\n\n- [ ] ${title} <!-- criterion: 1 -->\n`);
    const script = writeScript([
      { answer: { verdict: 'PASS', reason: 'red is right' } },
      { answer: { verdict: 'REJECT', reason: 'special-cased' } },
    ]);
    const env = verifyEnv({ VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }), VERI_VERIFY_AGENT: 'v' });
    delete env.VERI_ISSUE;
    delete env.VERI_TEST_CMD;

    assert.is(
      await runLines(repo, env, launchLines('red')),
      0,
      readFileSync(join(repo, '.tdd', 'verify-red.err'), 'utf8'),
    );
    assert.is(readFileSync(join(repo, '.tdd', 'verify-red.reason'), 'utf8'), 'red is right\n');
    assert.match(readFileSync(join(repo, '.tdd', 'verify-red.err'), 'utf8'), /supervise\[verdict-red\]: exited/);
    assert.ok(readFileSync(movePromptFile(script, 0), 'utf8').includes(`\nStep: ${title}\n`));

    makeGreen(repo);
    assert.is(await runLines(repo, env, launchLines('green')), 1);
    assert.is(readFileSync(join(repo, '.tdd', 'verify-green.reason'), 'utf8'), 'special-cased\n');

    const events = readEvents(join(repo, '.tdd', 'events.jsonl')).map((r) => r.event);
    const verdicts = events.filter((e) => e.event === 'verdict');
    assert.equal(
      verdicts.map((e) => [e.step, e.issue, e.event === 'verdict' ? e.verdict : '']),
      [
        [title, 3, 'PASS'],
        [title, 3, 'REJECT'],
      ],
    );
    const leaves = events.filter((e) => e.event === 'launch').map((e) => (e.event === 'launch' ? e.leaf : ''));
    assert.equal(leaves, ['verdict-red', 'verify-red', 'verdict-green', 'verify-green']);
    const outer = events.find((e) => e.event === 'launch' && e.leaf === 'verdict-red');
    assert.is(outer?.step, title, 'VERI_STEP from the ledger reaches the supervisor byte for byte');
  },
);

launch(
  'a harness ending verdict-PHASE while the verifier thinks: the verifier is ended too, the verdict is ERROR, wait-leaf.sh returns 2',
  async () => {
    const title = hostileTitles(2, 47)[0] as string;
    const repo = makeRedRepo();
    writeFileSync(join(repo, '.tdd', 'issue-3.md'), `# Issue 3\n\n## Steps\n\n- [ ] ${title} <!-- criterion: 1 -->\n`);
    const script = writeScript([{ hang: true }]);
    // A grace of 2 s, not the tests' 0.2 s: the outer supervisor's grace is all the inner one (in leap-verify)
    // has to end the verifier and write verify-red.exit before the outer's SIGKILL; on a loaded machine 0.2 s
    // was not always enough (verify-red.exit then never written: seen 1 run in 7 with two other suites running).
    const env = verifyEnv({
      VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }),
      VERI_VERIFY_AGENT: 'v',
      VERI_KILL_AFTER: '2',
    });
    delete env.VERI_ISSUE;
    delete env.VERI_TEST_CMD;
    const [clear, start, wait] = launchLines('red') as [string, string, string];
    assert.is(
      await runLines(repo, env, [clear, start]),
      0,
      'detach-leaf.sh returns once the supervisor holds the leaf',
    );

    // The verifier is running (after ground truth) under leap-verify's own supervisor, in a session of its own.
    const tdd = join(repo, '.tdd');
    const agent = await waitFor(() => readPidFile(join(tdd, 'verify-red.pid'))?.leaf, 20_000);
    assert.ok(agent !== undefined && isAlive(agent), 'the verifier agent started and hangs');
    const outer = readPidFile(join(tdd, 'verdict-red.pid'))?.pid as number;
    process.kill(outer, 'SIGTERM');

    assert.is(await runLines(repo, env, [wait]), 2, 'wait-leaf.sh: the verdict leaf was killed');
    assert.is(isAlive(agent), false, 'the verifier agent does not outlive the verdict');
    assert.is(readExitFile(join(tdd, 'verdict-red.exit'))?.status, 'killed-signal');
    // The outer's TERM reaches the verifier (in a session of its own) too: the inner records its own stop, or
    // the leaf's death by that signal if it saw it first; either way it recorded the end before the outer did.
    const inner = readExitFile(join(tdd, 'verify-red.exit'))?.status;
    assert.ok(inner === 'killed-signal' || inner === 'killed-external', `verify-red.exit: ${inner}`);
    const verdicts = readEvents(join(tdd, 'events.jsonl'))
      .map((r) => r.event)
      .filter((e) => e.event === 'verdict');
    assert.equal(
      verdicts.map((e) => [e.step, e.event === 'verdict' ? e.verdict : '']),
      [[title, 'ERROR']],
      'one verdict, ERROR, for the step byte for byte',
    );
    assert.is(
      readFileSync(join(tdd, 'verify-red.reason'), 'utf8'),
      `no verdict: v was stopped by its supervisor (${inner})\n`,
    );
  },
);

launch.run();

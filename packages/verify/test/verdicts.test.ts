// The verdicts issue 40 adds to leap-verify: BLOCKED (the verifier's honest way out), flaky (a green whose suite
// passes once and fails once, each test in a verdict event of its own), the counts a phase's suite run reported, and
// a test file of a language without a canary said beside the agent's reason.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { VERDICT_ANSWER_FORMAT, renderVerifyPrompt, verify } from '../src/index.js';
import { makeGreen, makeRedRepo, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';

function setup(moves: unknown[], testCmd?: string) {
  const repo = makeRedRepo();
  const dir = makeTempDir();
  const agents = writeAgents({ v: { plugin: 'scripted', script: writeScript(moves, 'scripted', dir) } }, dir);
  return {
    repo,
    env: verifyEnv({
      VERI_AGENTS: agents,
      VERI_VERIFY_AGENT: 'v',
      ...(testCmd === undefined ? {} : { VERI_TEST_CMD: testCmd }),
    }),
  };
}

const verdictEvents = (repo: string) =>
  readEvents(join(repo, '.tdd', 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'verdict');

const run = suite('verify: BLOCKED, flaky, counts, no canary');
run.after.each(cleanupTempDirs);

run(
  'a verifier answering BLOCKED: exit 1, the verdict BLOCKED with its reason byte for byte; the prompt offers it',
  async () => {
    const reason = 'This test cannot pass without breaking criterion 1: "hello" vs `Hi` $x ü';
    const { repo, env } = setup([{ answer: { verdict: 'BLOCKED', reason } }]);
    const result = await verify({ phase: 'red', step: STEP, cwd: repo, env });
    assert.equal([result.code, result.verdict, result.reason, result.decidedBy], [1, 'BLOCKED', reason, 'agent']);
    assert.equal(
      verdictEvents(repo).map((e) => [e.verdict, e.reason, e.code]),
      [['BLOCKED', reason, 1]],
    );
    const { prompt } = await renderVerifyPrompt({ phase: 'red', step: STEP, cwd: repo, env });
    assert.match(prompt, VERDICT_ANSWER_FORMAT);
    assert.match(prompt, 'answer BLOCKED with the reason: the run stops and asks the user.');
  },
);

run(
  'green: a test that passes on the first run and fails on the second is flaky, named in a verdict event of its own',
  async () => {
    const { repo, env } = setup([{ answer: { verdict: 'PASS', reason: 'Implements the spec.' } }]);
    makeGreen(repo);
    // The test counts its runs in an ignored folder of the tree (linked into the copy the second run is made in; a
    // canary, first in the file, fails it before it counts): it passes on its first run and fails on its second.
    const counting = [
      "import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';",
      "mkdirSync('counts', { recursive: true });",
      "let n = 0;\ntry { n = Number(readFileSync('counts/n', 'utf8')); } catch {}",
      "writeFileSync('counts/n', String(n + 1));",
      "if (n % 2 === 1) { console.log('not ok 1 - greets on Sundays'); process.exit(1); }",
      '',
    ].join('\n');
    writeFileSync(join(repo, 'test', 'greet.test.js'), counting);
    writeFileSync(join(repo, '.gitignore'), '.tdd/\nnode_modules/\n/counts/\n');
    git(repo, 'commit', '-q', '-am', 'a test that counts its runs');
    const result = await verify({
      phase: 'green',
      step: STEP,
      cwd: repo,
      env: { ...env, LEAP_SANDBOX: 'off' },
      testGlobs: ['test/greet.test.js'],
    });
    assert.equal([result.code, result.verdict, result.flaky], [1, 'flaky', ['greets on Sundays']]);
    assert.is(
      result.reason,
      'ground truth: flaky: greets on Sundays passed once and failed once on the same tree; a flaky test is never ticked',
    );
    const [event, ...others] = verdictEvents(repo);
    assert.equal(others, []);
    assert.equal(
      [event?.phase, event?.verdict, event?.test, event?.code, event?.step, event?.commit],
      ['green', 'flaky', 'greets on Sundays', 1, STEP, git(repo, 'rev-parse', 'HEAD').trim()],
    );
    const reruns = readEvents(join(repo, '.tdd', 'events.jsonl'))
      .map((r) => r.event)
      .filter((e) => e.event === 'suite' && e.purpose === 'rerun');
    assert.equal(
      reruns.map((e) => [e.phase, e.code]),
      [['green', 1]],
    );
  },
);

run(
  "green: a project's test that fails once is flaky, not a REJECT; one that fails twice is the suite failing",
  async () => {
    for (const [times, verdict] of [
      [1, 'flaky'],
      [2, 'REJECT'],
    ] as const) {
      const marks = makeTempDir();
      // The project's own test, not the step's: it fails in the work tree (never in a copy) while a mark is left.
      const own = `m=$(ls "${marks}" | head -1); if [ "$(pwd -P)" = "$REPO" ] && [ -n "$m" ]; then rm "${marks}/$m";`;
      const testCmd = `${own} echo 'not ok 1 - util keeps time'; exit 1; fi; for f in test/*.test.js; do node "$f" || exit 1; done`;
      const { repo, env } = setup([{ answer: { verdict: 'PASS', reason: 'Implements the spec.' } }], testCmd);
      for (let n = 0; n < times; n++) writeFileSync(join(marks, String(n)), '');
      makeGreen(repo);
      const result = await verify({
        phase: 'green',
        step: STEP,
        cwd: repo,
        env: { ...env, LEAP_SANDBOX: 'off', REPO: realpathSync(repo) },
      });
      const reruns = readEvents(join(repo, '.tdd', 'events.jsonl')).filter(
        (r) => r.event.event === 'suite' && r.event.purpose === 'rerun',
      );
      assert.equal([result.verdict, result.decidedBy, reruns.length], [verdict, 'ground-truth', 1]);
      if (verdict === 'REJECT') assert.is(result.reason, 'ground truth: the suite fails: util keeps time');
      else
        assert.equal(
          [result.flaky, verdictEvents(repo).map((e) => [e.verdict, e.test])],
          [['util keeps time'], [['flaky', 'util keeps time']]],
        );
    }
  },
);

run(
  "the counts of a phase's suite run ride in its verdict; a file of a language without a canary is said beside the reason",
  async () => {
    const testCmd =
      'echo "# tests 4"; echo "# pass 3"; echo "# fail 0"; echo "# skipped 1"; for f in test/*.test.js; do node "$f" || exit 1; done';
    const { repo, env } = setup([{ answer: { verdict: 'PASS', reason: 'Implements the spec.' } }], testCmd);
    makeGreen(repo);
    writeFileSync(join(repo, 'test', 'greet.test.sh'), 'true\n');
    const result = await verify({ phase: 'green', step: STEP, cwd: repo, env, testGlobs: ['test/greet.test.sh'] });
    assert.equal(
      [result.verdict, result.reason],
      [
        'PASS',
        'Implements the spec. (ground truth: no canary for the language of test/greet.test.sh: that its tests ran is not proven)',
      ],
    );
    assert.equal(verdictEvents(repo).at(-1)?.counts, { ran: 3, skipped: 1 });
  },
);

run.run();

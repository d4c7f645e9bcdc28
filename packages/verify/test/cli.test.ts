import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, hostileTitles, runBin, runCommand, scriptPath } from '@leap/test-utils';
import { juryBin, makeRedRepo, verdictBin, verifyBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';

/** A red repository whose ledger also lists `titles`, and a scripted verifier with `moves`. */
function setup(moves: unknown[], titles: string[] = []) {
  const repo = makeRedRepo();
  const ledger = join(repo, '.tdd', 'issue-3.md');
  writeFileSync(ledger, readFileSync(ledger, 'utf8') + titles.map((t) => `- [ ] ${t}\n`).join(''));
  const script = writeScript(moves);
  const env = verifyEnv({ VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }), VERI_VERIFY_AGENT: 'v' });
  return { repo, script, env };
}

const help = suite('--help');

help('every bin and drop-in script answers --help with its usage and exit 0', async () => {
  for (const [bin, usage] of [
    [verifyBin, 'Usage: leap-verify'],
    [verdictBin, 'Usage: leap-verdict'],
    [juryBin, 'Usage: leap-jury'],
  ] as const) {
    const ran = await runBin(bin, ['--help']);
    assert.is(ran.code, 0);
    assert.ok(ran.stdout.startsWith(usage), ran.stdout);
    assert.match(ran.stdout, /Exit codes: 0 /);
  }
  for (const script of ['run-verdict.sh', 'verify.sh', 'build-verify-prompt.sh']) {
    const ran = await runCommand(scriptPath(script), ['--help']);
    assert.is(ran.code, 0, script);
    assert.match(ran.stdout, /^Usage: leap-ver(ify|dict)/);
  }
});

help.run();

// ---

const verifyCli = suite('leap-verify');
verifyCli.after.each(cleanupTempDirs);

verifyCli('prints the reason on stdout and exits 0 / 1 / 2; --json prints the verdict object', async () => {
  const { repo, env } = setup([
    { answer: { verdict: 'PASS', reason: 'fine' } },
    { answer: { verdict: 'REJECT', reason: 'not the spec' } },
    { answer: 'garbage' },
  ]);
  const pass = await runBin(verifyBin, ['--step', STEP, 'red'], { cwd: repo, env });
  assert.equal([pass.code, pass.stdout], [0, 'fine\n']);
  assert.match(pass.stderr, /leap-verify: ground truth: running VERI_TEST_CMD/);
  const reject = await runCommand(scriptPath('verify.sh'), ['--step', STEP, 'red', '--json'], { cwd: repo, env });
  assert.is(reject.code, 1);
  assert.equal(JSON.parse(reject.stdout).reason, 'not the spec');
  const malformed = await runBin(verifyBin, ['red', `--step=${STEP}`], { cwd: repo, env });
  assert.is(malformed.code, 2);
  assert.match(malformed.stdout, /^malformed verdict: the answer is not one JSON object: "garbage"\n$/);
  assert.equal(
    readEvents(join(repo, '.tdd', 'events.jsonl'))
      .filter((r) => r.event.event === 'verdict')
      .map((r) => (r.event as { code?: number }).code),
    [0, 1, 2],
  );
});

verifyCli('bad usage is a 2 naming the problem', async () => {
  const { repo, env } = setup([]);
  const cases: Array<[string[], RegExp]> = [
    [['--step', STEP, 'red', 'green'], /Expected one PHASE, got 2 arguments: "red" "green"/],
    [['--step', STEP, 'blue'], /Expected PHASE to be one of red, green, refactor, got "blue"/],
    [['--step', STEP, 'red', '--bogus'], /Unknown option '--bogus'/],
    [['red', '--step'], /option --step needs a value/],
    [['--step', STEP, '--issue', 'x', 'red'], /Expected --issue to be a positive integer, got "x"/],
    [['red'], /leap-verify: missing --step TITLE/],
  ];
  for (const [args, message] of cases) {
    const ran = await runBin(verifyBin, args, { cwd: repo, env });
    assert.is(ran.code, 2, args.join(' '));
    assert.match(ran.stderr, message);
    assert.is(ran.stdout, '');
  }
});

verifyCli('prompt mode prints the prompt; titles are data, even ones starting with "-"', async () => {
  const titles = [...hostileTitles(12, 17), '-m', '--step'];
  const { repo, env } = setup([], titles);
  for (const title of titles) {
    const ran = await runBin(verifyBin, ['prompt', '--step', title, 'green'], { cwd: repo, env });
    assert.is(ran.code, 0, ran.stderr);
    assert.ok(ran.stdout.includes(`\nStep: ${title}\n`), title);
  }
  const viaScript = await runCommand(scriptPath('build-verify-prompt.sh'), ['--step', STEP, 'red'], { cwd: repo, env });
  const direct = await runBin(verifyBin, ['prompt', '--step', STEP, 'red'], { cwd: repo, env });
  assert.equal([viaScript.code, viaScript.stdout], [0, direct.stdout]);
  const json = JSON.parse(
    (await runBin(verifyBin, ['prompt', '--json', '--step', STEP, 'red'], { cwd: repo, env })).stdout,
  );
  assert.equal([json.prompt, json.tests, json.testsSource], [direct.stdout, ['test/greet.test.js'], 'red-commit']);
});

verifyCli.run();

// ---

const verdictCli = suite('leap-verdict');
verdictCli.after.each(cleanupTempDirs);

verdictCli('passes the title as one argv element to leap-verify and exits with its code', async () => {
  const titles = hostileTitles(4, 23);
  const { repo, script, env } = setup(
    [
      ...titles.map(() => ({ answer: { verdict: 'PASS', reason: 'ok' } })),
      { answer: { verdict: 'REJECT', reason: 'no' } },
    ],
    titles,
  );
  for (const [i, title] of titles.entries()) {
    const ran = await runCommand(scriptPath('run-verdict.sh'), ['--step', title, 'red'], { cwd: repo, env });
    assert.equal([ran.code, ran.stdout], [0, 'ok\n'], ran.stderr);
    assert.ok(readFileSync(movePromptFile(script, i), 'utf8').includes(`\nStep: ${title}\n`), title);
  }
  const steps = readEvents(join(repo, '.tdd', 'events.jsonl'))
    .filter((r) => r.event.event === 'verdict')
    .map((r) => r.event.step);
  assert.equal(steps, titles);
  const reject = await runBin(verdictBin, ['--step', STEP, 'red'], { cwd: repo, env });
  assert.equal([reject.code, reject.stdout], [1, 'no\n']);
  const bad = await runBin(verdictBin, ['--step', STEP, 'mauve'], { cwd: repo, env });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /leap-verify: Expected PHASE to be one of red, green, refactor/);
});

verdictCli.run();

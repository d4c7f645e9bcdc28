// Every suite run has the run's time and idle limits (CONTRACT section 9): a suite one of them ended is the
// suite-limit bail naming the test command and quoting its last output line, with what to do; a watch mode seen
// before running (on the command line, or in the package.json script it calls) is the same bail at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, processesWhoseArgv, suite } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  commandAgents,
  makeProject,
  oneStepRun,
  readEvents,
  slugSteps,
  writeRepoFile,
  type StepEdits,
} from './helpers.js';

const limits = suite('runTdd: suite limits');
limits.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

function bailOf(repo: string): Record<string, unknown> | undefined {
  return readEvents(repo).find((e) => e.event === 'bail');
}

limits(
  'a watch mode on the command line is named before the baseline runs: suite-limit, its run form, nothing made',
  async () => {
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    const result = await runTdd(oneStepRun(repo, agents.file, { testCmd: 'node --test --watch test/' }));
    assert.is(result.code, 1);
    assert.is(result.bail?.cause, 'suite-limit');
    assert.is(result.bail?.class, 'process');
    assert.is(
      result.bail?.narration,
      "The test command `node --test --watch test/` would not end: it runs `node --watch`, a watch mode that waits for file changes, and every suite run is ended at the run's time or idle limit. Use its run form `node --test test/`, which runs the suite once: run again with --test-cmd 'node --test test/'.",
    );
    assert.equal(
      readEvents(repo).filter((e) => e.event === 'suite'),
      [],
      'no suite ran',
    );
    assert.is(bailOf(repo)?.cause, 'suite-limit');
    assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  },
);

limits('a watch mode in the package.json script `npm test` calls is named the same way, with the script', async () => {
  const repo = makeProject();
  writeRepoFile(
    repo,
    'package.json',
    `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: 'npm run unit', unit: 'vitest --watch --reporter=dot' } })}\n`,
  );
  git(repo, 'commit', '-qam', 'a watching script');
  const agents = commandAgents(slugSteps([TITLE]));
  const result = await runTdd(oneStepRun(repo, agents.file, { testCmd: 'npm test' }));
  assert.is(result.bail?.cause, 'suite-limit');
  assert.match(
    result.bail?.narration ?? '',
    'the "unit" script of package.json (`vitest --watch --reporter=dot`) runs `vitest --watch`',
  );
  assert.match(result.bail?.narration ?? '', "--test-cmd 'npx vitest run --reporter=dot', or make the script run it.");
});

limits(
  'a baseline that waits is ended by the idle limit, whole: suite-limit quotes its last line and says it watches',
  async () => {
    const repo = makeProject();
    const token = `leap-baseline-waits-${process.pid}`;
    const testCmd = `echo 'Waiting for file changes...'; (trap '' TERM; exec -a ${token} sleep 1000)`;
    const agents = commandAgents(slugSteps([TITLE]));
    const result = await runTdd(
      oneStepRun(repo, agents.file, {
        testCmd,
        idleTimeout: '0.5',
        env: { ...oneStepRun(repo, '').env, VERI_KILL_AFTER: '0.2' },
      }),
    );
    assert.is(result.code, 1);
    assert.is(result.bail?.cause, 'suite-limit');
    assert.is(
      result.bail?.narration,
      `The test command \`${testCmd}\` did not end: its idle limit (0.5 with no output and no CPU, --idle-timeout) ended it, with every process it started. Its last output line: "Waiting for file changes...". It waits for file changes: a watch mode. Give a test command that runs the suite once and exits (\`vitest run\`, not \`vitest --watch\`; \`jest\`, not \`jest --watch\`) with --test-cmd, then run again.`,
    );
    assert.equal(
      processesWhoseArgv((argv) => argv[0] === token),
      [],
    );
    const [event] = readEvents(repo).filter((e) => e.event === 'suite');
    assert.is(event?.phase, 'baseline');
    assert.is(event?.limit, 'idle');
    assert.ok((event?.duration_ms as number) >= 500, `ended at its limit: ${event?.duration_ms} ms`);
    assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  },
);

limits(
  "a red whose test never ends: verify-red's suite is ended by the time limit, the bail names it, the red is kept aside",
  async () => {
    const repo = makeProject();
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    step.red = {
      path: 'test/step1.test.js',
      content: "console.log('polling the server');\nsetInterval(() => console.log('still polling'), 100);\n",
    };
    const agents = commandAgents(steps);
    const result = await runTdd(oneStepRun(repo, agents.file, { timeout: '3', idleTimeout: '0' }));
    assert.is(result.code, 1, JSON.stringify(result.bail));
    assert.is(result.bail?.cause, 'suite-limit');
    assert.match(
      result.bail?.narration ?? '',
      /^The test command `node test\/run\.mjs` did not end: its time limit \(3, --timeout\) ended it, with every process it started\. Its last output line: "[^"]*still polling"\. If the suite needs longer, raise --timeout; if it waits for something \(a server, input, a lock\), make it end by itself\. Then run again\.\n/,
    );
    const suites = readEvents(repo).filter((e) => e.event === 'suite');
    assert.equal(
      suites.map((e) => [e.phase, e.purpose, e.limit]),
      [
        ['baseline', undefined, undefined],
        ['baseline', 'rerun', undefined],
        ['red', undefined, 'timeout'],
      ],
    );
    const verdict = readEvents(repo).find((e) => e.event === 'verdict' && e.phase === 'red');
    assert.is(verdict?.verdict, 'ERROR');
    assert.match(String(verdict?.reason), /^ground truth: the test command `node test\/run\.mjs` did not end/);
    assert.equal(
      processesWhoseArgv((argv) => argv.some((a) => a.includes(join(repo, 'test')))),
      [],
      'no test process is left',
    );
    // The half-done step is kept aside and reverted, as for every bail.
    assert.match(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/leap/attempts/'), /step-1/);
    assert.is(readFileSync(join(repo, 'test', 'smoke.test.js'), 'utf8').length > 0, true);
  },
);

limits('a suite ended by VERI_SUITE_TIMEOUT, a limit of its own beside a long leaf limit, is named by it', async () => {
  const repo = makeProject();
  const token = `leap-suite-timeout-${process.pid}`;
  // Prints, so the idle limit never ends it: only the suite's own time limit can.
  const testCmd = `echo 'polling'; exec -a ${token} sh -c 'while :; do echo still polling; sleep 0.2; done'`;
  const agents = commandAgents(slugSteps([TITLE]));
  const env = { ...oneStepRun(repo, '').env, VERI_TIMEOUT: '60', VERI_SUITE_TIMEOUT: '1', VERI_KILL_AFTER: '0.2' };
  const result = await runTdd(oneStepRun(repo, agents.file, { testCmd, env }));
  assert.is(result.bail?.cause, 'suite-limit', JSON.stringify(result.bail));
  assert.match(
    result.bail?.narration ?? '',
    `its time limit (1, VERI_SUITE_TIMEOUT) ended it, with every process it started. Its last output line: "still polling". If the suite needs longer, raise VERI_SUITE_TIMEOUT;`,
  );
  assert.equal(
    processesWhoseArgv((argv) => argv[0] === token),
    [],
  );
  assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
});

limits.run();

// runSuite: the project's test command as one supervised suite run, recorded as a `suite` event.
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkSandbox } from '@leap/supervise';
import { cleanupTempDirs, makeGitRepo, processesWhoseArgv, suite, waitFor } from '@leap/test-utils';
import { SuiteLimitError, runSuite } from '../src/index.js';

function suiteEvents(stateDir: string): Record<string, unknown>[] {
  return readFileSync(join(stateDir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.event === 'suite');
}

const purpose = suite('runSuite purpose');
purpose.after.each(cleanupTempDirs);

purpose('a canary run and a flaky re-run say so in their suite event; the others carry no purpose', async () => {
  const repo = makeGitRepo({ files: { '.gitignore': '.tdd/\n' } });
  const stateDir = join(repo, '.tdd');
  mkdirSync(stateDir);
  const base = {
    testCmd: 'true',
    env: { ...process.env, VERI_ISSUE: '3' },
    stateDir,
    suiteLog: join(stateDir, 'suite.log'),
  };
  assert.is(await runSuite({ ...base, phase: 'green' }, repo), 0);
  assert.is(await runSuite({ ...base, phase: 'green', purpose: 'canary' }, repo), 0);
  assert.is(await runSuite({ ...base, phase: 'green', purpose: 'rerun' }, repo), 0);
  assert.equal(
    suiteEvents(stateDir).map((e) => [e.phase, e.purpose, e.issue]),
    [
      ['green', undefined, 3],
      ['green', 'canary', 3],
      ['green', 'rerun', 3],
    ],
  );
});

purpose.run();

// ---

const limits = suite('runSuite limits');
limits.after.each(cleanupTempDirs);

/** A repository with a state folder, and the environment of a suite run with short limits (ms). */
function limitedRun(extra: Record<string, string>) {
  const repo = makeGitRepo({
    files: { '.gitignore': '.tdd/\n', 'a.test.js': 'require("node:test")("a", () => {});\n' },
  });
  const stateDir = join(repo, '.tdd');
  mkdirSync(stateDir);
  const env = { ...process.env, VERI_ISSUE: '3', VERI_KILL_AFTER: '0.3', ...extra };
  return { repo, stateDir, base: { env, stateDir, suiteLog: join(stateDir, 'suite.log'), phase: 'green' as const } };
}

async function limitError(run: Promise<number>): Promise<SuiteLimitError> {
  const error = await run.then(
    (code) => new Error(`the suite ended by itself with ${code}`),
    (e: unknown) => e,
  );
  if (!(error instanceof SuiteLimitError)) throw error;
  return error;
}

limits(
  'a watch mode that never ends (node --test --watch) is ended by the idle limit; the error quotes its last line',
  async () => {
    const { repo, stateDir, base } = limitedRun({ VERI_IDLE_TIMEOUT: '0.6', VERI_TIMEOUT: '60' });
    const error = await limitError(runSuite({ ...base, testCmd: 'node --test --watch' }, repo));
    assert.is(error.limit, 'idle');
    assert.is(error.limitMs, 600);
    assert.match(error.lastLine ?? '', /^# duration_ms /);
    assert.match(
      error.message,
      /`node --test --watch` did not end: it was ended by its idle limit \(0\.6s with no output and no CPU, VERI_IDLE_TIMEOUT\); its last output line: "# duration_ms/,
    );
    const [event] = suiteEvents(stateDir);
    assert.is(event?.limit, 'idle');
    assert.ok((event?.duration_ms as number) >= 600, `ended after its limit: ${event?.duration_ms} ms`);
    assert.type(event?.code, 'number', 'whatever it exited with once its group took SIGTERM (node exits 0)');
    assert.equal(
      readdirSync(stateDir).filter((f) => f.startsWith('suite-')),
      [],
      'its pid file goes with it',
    );
  },
);

limits('a suite that keeps printing is ended by the time limit (VERI_TIMEOUT), never by the idle one', async () => {
  const { repo, stateDir, base } = limitedRun({ VERI_IDLE_TIMEOUT: '0.4', VERI_TIMEOUT: '1.2' });
  const error = await limitError(
    runSuite({ ...base, testCmd: 'while :; do echo "tick $((n += 1))"; sleep 0.05; done' }, repo),
  );
  assert.is(error.limit, 'timeout');
  assert.match(error.message, /its time limit \(1\.2s, VERI_TIMEOUT\); its last output line: "tick \d+"/);
  const [event] = suiteEvents(stateDir);
  assert.ok((event?.duration_ms as number) >= 1200, `ended at its limit: ${event?.duration_ms} ms`);
  assert.is(event?.limit, 'timeout');
});

limits('VERI_SUITE_TIMEOUT bounds a suite run apart from the leaf time limit (VERI_TIMEOUT)', async () => {
  const roomy = limitedRun({ VERI_IDLE_TIMEOUT: '0', VERI_TIMEOUT: '0.2', VERI_SUITE_TIMEOUT: '60' });
  assert.is(
    await runSuite({ ...roomy.base, testCmd: 'sleep 0.5' }, roomy.repo),
    0,
    'past the leaf limit, within its own',
  );
  const { repo, stateDir, base } = limitedRun({
    VERI_IDLE_TIMEOUT: '0',
    VERI_TIMEOUT: '60',
    VERI_SUITE_TIMEOUT: '0.5',
  });
  const error = await limitError(runSuite({ ...base, testCmd: 'echo started; sleep 1000' }, repo));
  assert.is(error.limit, 'timeout');
  assert.is(error.limitMs, 500);
  assert.match(error.message, /its time limit \(0\.5s, VERI_SUITE_TIMEOUT\); its last output line: "started"/);
  assert.is(suiteEvents(stateDir)[0]?.limit, 'timeout');
});

limits(
  'the whole tree is ended: a grandchild that ignores SIGTERM and one that left the session; nothing is left in /proc',
  async () => {
    const { repo, stateDir, base } = limitedRun({ VERI_IDLE_TIMEOUT: '0.5', VERI_TIMEOUT: '60' });
    const token = `leap-suite-grandchild-${process.pid}`;
    const testCmd = `(trap '' TERM; exec -a ${token}-stays sleep 1000) & setsid bash -c "trap '' TERM; exec -a ${token}-escaped sleep 1000" & echo "Waiting for file changes..."; wait`;
    const ours = () => processesWhoseArgv((argv) => (argv[0] ?? '').startsWith(token));
    const run = runSuite({ ...base, testCmd }, repo);
    await waitFor(() => ours().length === 2, 10_000, 'both grandchildren started');
    const error = await limitError(run);
    assert.is(error.lastLine, 'Waiting for file changes...');
    assert.equal(ours(), [], 'no grandchild outlives the suite run');
    assert.is(suiteEvents(stateDir)[0]?.limit, 'idle');
  },
);

limits('a sandboxed suite (bwrap) is ended whole by its limit too', async () => {
  const { repo, stateDir, base } = limitedRun({ VERI_IDLE_TIMEOUT: '0.5', VERI_TIMEOUT: '60' });
  const token = `leap-suite-sandboxed-${process.pid}`;
  const sandbox = { bwrap: checkSandbox(process.env), testNetwork: false };
  const error = await limitError(
    runSuite({ ...base, sandbox, testCmd: `(trap '' TERM; exec -a ${token} sleep 1000) & echo waiting; wait` }, repo),
  );
  assert.is(error.limit, 'idle');
  assert.equal(
    processesWhoseArgv((argv) => argv[0] === token),
    [],
  );
  assert.is(suiteEvents(stateDir)[0]?.limit, 'idle');
});

limits(
  'a suite that ends by itself within its limits is not touched, and the limits come from the environment',
  async () => {
    const { repo, stateDir, base } = limitedRun({ VERI_IDLE_TIMEOUT: '5', VERI_TIMEOUT: '60' });
    assert.is(await runSuite({ ...base, testCmd: 'node --test' }, repo), 0);
    assert.is(await runSuite({ ...base, testCmd: 'exit 3' }, repo), 3);
    assert.equal(
      suiteEvents(stateDir).map((e) => [e.code, e.limit]),
      [
        [0, undefined],
        [3, undefined],
      ],
    );
    const bad = await runSuite({ ...base, env: { ...base.env, VERI_TIMEOUT: 'soon' }, testCmd: 'true' }, repo).catch(
      (e: Error) => e.message,
    );
    assert.match(String(bad), /VERI_TIMEOUT/, 'a malformed limit is refused before the suite runs');
    assert.is(suiteEvents(stateDir).length, 2);
  },
);

limits('when the process running the suite is SIGKILLed, its lifeline ends the suite', async () => {
  const { repo, stateDir } = limitedRun({});
  const token = `leap-suite-orphan-${process.pid}`;
  const script = `import { runSuite } from ${JSON.stringify(join(import.meta.dirname, '..', 'src', 'index.ts'))};
await runSuite({ testCmd: ${JSON.stringify(`exec -a ${token} sleep 1000`)}, env: process.env, stateDir: ${JSON.stringify(stateDir)}, suiteLog: '/dev/null' }, ${JSON.stringify(repo)});`;
  const runner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: 'ignore',
    env: { ...process.env, VERI_TIMEOUT: '0' },
  });
  try {
    await waitFor(() => processesWhoseArgv((argv) => argv[0] === token).length === 1, 20_000, 'the suite started');
    assert.is(
      readdirSync(stateDir).filter((f) => /^suite-.*\.pid$/.test(f)).length,
      1,
      'a pid file names its supervisor',
    );
  } finally {
    runner.kill('SIGKILL');
  }
  await waitFor(
    () => processesWhoseArgv((argv) => argv[0] === token).length === 0,
    10_000,
    'the lifeline ended the orphaned suite',
  );
});

limits.run();

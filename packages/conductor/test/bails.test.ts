// The bail table (README): each cause's condition, on real repositories; finished steps kept, nothing hangs.
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir, waitFor } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import { BAIL_CLASSES } from '../src/bail-causes.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  cleanEnv,
  fixture,
  makeProject,
  pass,
  planFile,
  readEvents,
  scriptedAgents,
  stepMoves,
  subjects,
  writeRepoFile,
  oneStepRun,
} from './helpers.js';

// An agents file: `dev` is the claude plugin over fixtures/fake-claude.mjs (FAKE_CLAUDE says how it behaves, passed
// into its sandbox by the entry's pass_env), `ver` always passes.
function fakeClaudeDeveloper(): string {
  const dir = makeTempDir();
  const claude = join(dir, 'claude');
  copyFileSync(fixture('fake-claude.mjs'), claude);
  chmodSync(claude, 0o755);
  const ver = scriptedAgents([], [pass()]);
  const file = join(dir, 'agents.json');
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        dev: { plugin: 'claude', bin: claude, pass_env: ['FAKE_CLAUDE'] },
        ver: { plugin: 'scripted', script: join(ver.dir, 'ver.json') },
      },
    }),
  );
  return file;
}

const bails = suite('runTdd: bails');
bails.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
const base = oneStepRun;

bails("the classes are the contract's", () => {
  assert.equal(
    Object.entries(BAIL_CLASSES)
      .filter(([, c]) => c === 'process')
      .map(([k]) => k)
      .sort(),
    ['baseline-red', 'commit-refused', 'cost-budget', 'dirty-tree', 'needs-user', 'revision-budget', 'suite-limit'],
  );
  assert.equal(
    Object.entries(BAIL_CLASSES)
      .filter(([, c]) => c === 'system')
      .map(([k]) => k)
      .sort(),
    ['agent-failed', 'agent-missing', 'killed-external', 'killed-stuck', 'killed-timeout'],
  );
});

bails('baseline-red: a suite that fails before any change; no branch is made', async () => {
  const repo = makeProject();
  writeRepoFile(
    repo,
    'test/broken.test.js',
    "import { test } from 'node:test';\ntest('broken', () => { throw new Error('already red'); });\n",
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'broken');
  const agents = scriptedAgents([], []);
  const result = await runTdd(base(repo, agents.file));
  assert.is(result.code, 1);
  assert.is(result.bail?.cause, 'baseline-red');
  assert.match(result.bail?.narration ?? '', 'fails before any change');
  assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  assert.is(result.leaves, 0);
});

bails('dirty-tree: uncommitted changes; nothing is touched but the log and the thread', async () => {
  const repo = makeProject();
  writeRepoFile(repo, 'src/slug.js', '// edited\n');
  const agents = scriptedAgents([], []);
  const result = await runTdd(base(repo, agents.file));
  assert.is(result.code, 1);
  assert.is(result.bail?.cause, 'dirty-tree');
  assert.match(result.bail?.narration ?? '', 'src/slug.js');
  assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  assert.is(readFileSync(join(repo, 'src/slug.js'), 'utf8'), '// edited\n');
});

bails("dirty-tree on resume, between steps: the person's changes are said and left as they are", async () => {
  const repo = makeProject(['one', 'two']);
  const titles = [TITLE, 'Second step'];
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [pass(), pass(), pass()]);
  const options = { ...base(repo, agents.file), planFile: planFile(titles) };
  writeRepoFile(repo, '.tdd/stop', 'at-ledger\n');
  const first = await runTdd(options);
  assert.is(first.code, 3);
  assert.match(first.stoppedAt ?? '', 'at the start of step 1');
  writeRepoFile(repo, 'notes.txt', "a person's notes\n");
  const result = await runTdd({ ...options, planFile: undefined });
  assert.is(result.bail?.cause, 'dirty-tree');
  assert.match(result.bail?.narration ?? '', 'notes.txt');
  assert.is(readFileSync(join(repo, 'notes.txt'), 'utf8'), "a person's notes\n");
  assert.is(git(repo, 'for-each-ref', 'refs/leap/attempts/'), '');
});

bails('needs-user: an ambiguous test command; the narration holds the whole question', async () => {
  const repo = makeProject();
  writeRepoFile(repo, 'Makefile', 'test:\n\tnode --test test/\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'make');
  const agents = scriptedAgents([], []);
  const result = await runTdd({ ...base(repo, agents.file), testCmd: undefined });
  assert.is(result.code, 1);
  assert.is(result.bail?.cause, 'needs-user');
  assert.match(
    result.bail?.narration ?? '',
    'Which command runs this project\'s tests: `npm test` (package.json has a "test" script), `make test` (the Makefile has a "test" target)?',
  );
  assert.match(readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'), 'leap tdd run --issue 1 --test-cmd');
  // Detected when only one candidate exists.
  git(repo, 'rm', '-q', 'Makefile');
  git(repo, 'commit', '-q', '-m', 'no make');
  const next = await runTdd({
    ...base(repo, scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [pass(), pass(), pass()]).file),
    testCmd: undefined,
  });
  assert.is(next.code, 0, JSON.stringify(next.bail));
  assert.match(readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'), 'tests: `npm test`');
});

bails('agent-missing: the developer CLI is not installed; within seconds, before any leaf', async () => {
  const repo = makeProject();
  const dir = makeTempDir();
  const file = join(dir, 'agents.json');
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        dev: { plugin: 'claude', bin: join(dir, 'no-such-claude') },
        ver: { plugin: 'codex', bin: join(dir, 'no-codex') },
      },
    }),
  );
  const started = Date.now();
  const result = await runTdd(base(repo, file));
  assert.is(result.code, 1);
  assert.is(result.bail?.cause, 'agent-missing');
  assert.is(result.bail?.class, 'system');
  assert.match(result.bail?.narration ?? '', 'no-such-claude');
  assert.ok(Date.now() - started < 10_000);
  assert.is(result.leaves, 0);
});

bails(
  'agent-failed: a CLI that exits with an error by itself; its own words in the narration; the step does not count it',
  async () => {
    const repo = makeProject();
    const file = fakeClaudeDeveloper();
    const started = Date.now();
    const result = await runTdd(base(repo, file));
    assert.is(result.code, 1);
    assert.is(result.bail?.cause, 'agent-failed');
    assert.match(result.bail?.narration ?? '', 'Not logged in · Please run /login');
    // The CLI's words once, however many of the leaf's readings quote them.
    assert.is(
      (result.bail?.narration ?? '').split('Not logged in · Please run /login').length,
      2,
      result.bail?.narration,
    );
    assert.ok(Date.now() - started < 15_000);
    assert.equal(subjects(repo), ['plan: issue 1']);
    const usage = readEvents(repo).filter((e) => e.event === 'usage');
    assert.is(usage.length, 1);
    // Run again with a working developer: the step starts at its first attempt.
    const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [pass(), pass(), pass()]);
    const again = await runTdd({ ...base(repo, agents.file), planFile: undefined });
    assert.is(again.code, 0, JSON.stringify(again.bail));
    assert.equal(
      readEvents(repo).filter((e) => e.event === 'launch' && e.leaf === 'develop-red-2'),
      [],
    );
  },
);

// The suite runs (the baseline) have a time limit of their own, VERI_SUITE_TIMEOUT: a leaf's can be short.
bails('killed-timeout: a stuck leaf is relaunched once, then the run bails', async () => {
  const repo = makeProject();
  const agents = scriptedAgents([{ hang: true }, { hang: true }], []);
  const env = cleanEnv({ VERI_TIMEOUT: '1', VERI_SUITE_TIMEOUT: '60', VERI_KILL_AFTER: '0.1' });
  const result = await runTdd(base(repo, agents.file, { env }));
  assert.is(result.code, 1);
  assert.is(result.bail?.cause, 'killed-timeout');
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'exit')
      .map((e) => `${e.leaf} ${e.status}`),
    ['develop-red killed-timeout', 'develop-red killed-timeout'],
  );
});

bails('killed-stuck retried once: the relaunch goes on to done', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const agents = scriptedAgents(
    [{ hang: true, edits: [{ path: 'half.js', content: 'half' }] }, red!, green!, refactor!],
    [pass(), pass(), pass()],
  );
  const result = await runTdd(
    base(repo, agents.file, { env: cleanEnv({ VERI_IDLE_TIMEOUT: '0.6', VERI_KILL_AFTER: '0.1' }) }),
  );
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.is(existsSync(join(repo, 'half.js')), false);
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.match(
    readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'),
    'develop-red was killed-stuck; relaunching it once',
  );
});

bails('killed-external: a leaf killed by someone else is never relaunched', async () => {
  const repo = makeProject();
  const agents = scriptedAgents([{ sleep_ms: 20_000 }], []);
  const running = runTdd(base(repo, agents.file));
  const pidFile = join(repo, '.tdd/develop-red.pid');
  const leaf = Number(
    (
      await waitFor(
        () => (existsSync(pidFile) ? /leaf=(\d+)/.exec(readFileSync(pidFile, 'utf8')) : null),
        120_000,
        'develop-red running',
      )
    )[1],
  );
  process.kill(leaf, 'SIGKILL');
  const result = await running;
  assert.is(result.bail?.cause, 'killed-external');
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'launch')
      .map((e) => e.leaf),
    ['develop-red'],
  );
});

bails('commit-refused: a pre-commit hook refuses the red commit', async () => {
  const repo = makeProject();
  writeFileSync(
    join(repo, '.git/hooks/pre-commit'),
    '#!/bin/sh\ngit diff --cached --name-only | grep -q step1 && { echo "no tests on Fridays" >&2; exit 1; }\nexit 0\n',
  );
  chmodSync(join(repo, '.git/hooks/pre-commit'), 0o755);
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), []);
  const result = await runTdd(base(repo, agents.file));
  assert.is(result.bail?.cause, 'commit-refused');
  assert.match(result.bail?.narration ?? '', 'no tests on Fridays');
  assert.equal(subjects(repo), ['plan: issue 1']);
  assert.is(git(repo, 'status', '--porcelain'), '');
});

bails('cost-budget: checked after every leaf, says what was spent and on what', async () => {
  const repo = makeProject();
  const file = fakeClaudeDeveloper();
  // --notify tells a cost-budget bail as its own event (CONTRACT section 14).
  const record = join(makeTempDir('leap-notify-'), 'told.jsonl');
  const result = await runTdd(
    base(repo, file, {
      maxCost: 0.5,
      env: cleanEnv({ FAKE_CLAUDE: 'cost' }),
      notify: [process.execPath, fixture('notify-recorder.mjs'), record],
    }),
  );
  assert.is(result.bail?.cause, 'cost-budget');
  const told = JSON.parse((JSON.parse(readFileSync(record, 'utf8')) as { stdin: string }).stdin) as {
    event: string;
    bail: { cause: string };
  };
  assert.equal([told.event, told.bail.cause], ['cost-budget', 'cost-budget']);
  assert.is(result.bail?.class, 'process');
  assert.match(result.bail?.narration ?? '', '$0.7500, past the budget of $0.5 (--max-cost): develop-red $0.7500');
});

bails.run();

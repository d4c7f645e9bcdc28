// The conductor's small parts, each on real files and processes: test-command detection, the run's files,
// usage sums, a failing CLI's words, orphaned leaves of a dead conductor, status edge cases, the prompts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, isAlive, makeGitRepo, makeTempDir, waitFor } from '@leap/test-utils';
import { UsageError, statePaths } from '@leap/core';
import { createCommandAgent } from '@leap/agent-command';
import { createClaudeAgent } from '@leap/agent-claude';
import { chooseTestCommand, testCommandCandidates, testCommandQuestion } from '../src/detect-test-cmd.js';
import {
  checkPin,
  currentRevision,
  ensureStateGitignore,
  ensureTimeoutFile,
  pinSkillCommit,
  readJournal,
  snapshot,
  toolchainRevision,
  writeJournal,
  removeJournal,
  STATE_GITIGNORE,
} from '../src/run-files.js';
import { describeSpend, hasUsageSince, issueCosts } from '../src/launch.js';
import { endOrphanLeaves, findOrphanLeaves } from '@leap/supervise';
import { formatTddStatus, readTddStatus } from '../src/status.js';
import { agentWords, resolveRunAgents } from '../src/run-agents.js';
import { developerPrompt, plannerPrompt } from '../src/prompts.js';
import { bailClass } from '../src/bail-causes.js';
import { branchFromFiles, headFromFiles } from '../src/conductor.js';
import { cleanEnv } from './helpers.js';

const detect = suite('chooseTestCommand');
detect.after.each(cleanupTempDirs);

detect('each convention alone is found; two are ambiguous; none is none; given ones win', () => {
  const cases: [Record<string, string>, string][] = [
    [{ 'package.json': '{"scripts":{"test":"vitest"}}' }, 'npm test'],
    [{ Makefile: 'all:\n\ttrue\ntest: all\n\ttrue\n' }, 'make test'],
    [{ 'pytest.ini': '[pytest]\n' }, 'pytest'],
    [{ 'pyproject.toml': '[tool.pytest.ini_options]\n' }, 'pytest'],
    [{ 'setup.cfg': '[tool:pytest]\n' }, 'pytest'],
    [{ 'tox.ini': '[pytest]\n' }, 'pytest'],
    [{ 'conftest.py': '' }, 'pytest'],
    [{ 'Cargo.toml': '[package]\n' }, 'cargo test'],
    [{ 'go.mod': 'module x\n' }, 'go test ./...'],
  ];
  for (const [files, expected] of cases) {
    const dir = makeTempDir();
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const choice = chooseTestCommand(dir, undefined, {});
    assert.is(choice.kind === 'found' ? choice.command : choice.kind, expected, JSON.stringify(files));
  }
  const none = makeTempDir();
  writeFileSync(join(none, 'package.json'), '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}');
  writeFileSync(join(none, 'Makefile'), 'build:\n\ttrue\n');
  assert.equal(chooseTestCommand(none, undefined, {}), { kind: 'none' });
  assert.match(testCommandQuestion({ kind: 'none' }, 4), 'none could be detected');
  const broken = makeTempDir();
  writeFileSync(join(broken, 'package.json'), '{not json');
  assert.equal(testCommandCandidates(broken), []);
  const both = makeTempDir();
  writeFileSync(join(both, 'Cargo.toml'), '');
  writeFileSync(join(both, 'go.mod'), '');
  assert.is(chooseTestCommand(both, undefined, {}).kind, 'ambiguous');
  assert.equal(chooseTestCommand(both, 'make check', { VERI_TEST_CMD: 'x' }), {
    kind: 'found',
    command: 'make check',
    source: '--test-cmd',
  });
  assert.equal(chooseTestCommand(both, undefined, { VERI_TEST_CMD: 'npm run t' }), {
    kind: 'found',
    command: 'npm run t',
    source: 'VERI_TEST_CMD',
  });
  assert.is(chooseTestCommand(both, '  ', { VERI_TEST_CMD: ' ' }).kind, 'ambiguous');
});

detect.run();

// ---

const head = suite('headFromFiles');
head.after.each(cleanupTempDirs);

head('answers as git log -1 does from loose refs, packed-refs and a detached HEAD; null where only git can say', () => {
  const dir = makeGitRepo();
  const commit = (message: string) =>
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@leap.invalid', 'commit', '-q', '--allow-empty', '-m', message);
  const logged = () => {
    const [sha, subject] = git(dir, 'log', '-1', '--format=%H%x00%s').trim().split('\0');
    return { sha, subject };
  };
  const env = cleanEnv();
  for (const title of ['red: it\'s $(x) `y` "q" ünï', 'plan: issue 1']) {
    commit(title);
    assert.equal(headFromFiles(dir, env), logged(), title);
  }
  git(dir, 'pack-refs', '--all');
  assert.equal(headFromFiles(dir, env), logged(), 'the branch in packed-refs only');
  git(dir, 'checkout', '-q', '--detach');
  assert.equal(headFromFiles(dir, env), logged(), 'a detached HEAD');
  git(dir, 'checkout', '-q', '-');
  commit('two lines\n\nand a body');
  assert.is(headFromFiles(dir, env), null, 'a message of more than one line');
  commit('one line');
  assert.is(headFromFiles(dir, { ...env, GIT_DIR: join(dir, '.git') }), null, 'GIT_DIR');
  mkdirSync(join(dir, '.git', 'reftable'));
  assert.is(headFromFiles(dir, env), null, 'refs in a reftable (git 2.45 and later can make one)');
  assert.is(branchFromFiles(dir, env, 'leap/issue-1'), null, 'refs in a reftable: nor the branch');
  rmSync(join(dir, '.git', 'reftable'), { recursive: true });
  git(dir, 'gc', '-q');
  assert.is(headFromFiles(dir, env), null, 'a packed object');
  const linked = join(makeTempDir(), 'linked');
  git(dir, 'worktree', 'add', '-q', linked);
  assert.is(headFromFiles(linked, env), null, "a linked worktree's .git file");
  assert.is(headFromFiles(makeTempDir(), env), null, 'no repository');
});

head(
  'says where HEAD is and whether a branch exists as symbolic-ref and rev-parse --verify do; null where only git can say',
  () => {
    const dir = makeGitRepo();
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@leap.invalid', 'commit', '-q', '--allow-empty', '-m', 'first');
    const env = cleanEnv();
    const asGit = (branch: string) => {
      let current = '';
      try {
        current = git(dir, 'symbolic-ref', '--short', '-q', 'HEAD').trim();
      } catch {
        /* detached */
      }
      let exists = true;
      try {
        git(dir, 'rev-parse', '--verify', '-q', `refs/heads/${branch}`);
      } catch {
        exists = false;
      }
      return { current, exists };
    };
    const check = (branch: string, what: string) =>
      assert.equal(branchFromFiles(dir, env, branch), asGit(branch), what);
    check('leap/issue-1', 'no such branch, no packed-refs');
    git(dir, 'branch', 'leap/issue-1');
    check('leap/issue-1', 'a loose branch');
    git(dir, 'pack-refs', '--all');
    check('leap/issue-1', 'a packed branch');
    check('leap/issue-2', 'no such branch in packed-refs');
    git(dir, 'checkout', '-q', '--detach');
    check('leap/issue-1', 'a detached HEAD');
    git(dir, 'checkout', '-q', 'leap/issue-1');
    check('main', 'on the run branch');
    check('leap', 'a prefix of a packed branch');
    git(dir, 'branch', 'leap/issue-3');
    assert.is(branchFromFiles(dir, env, 'leap'), null, 'a folder where the ref would be');
    assert.is(branchFromFiles(dir, { ...env, GIT_DIR: join(dir, '.git') }, 'main'), null, 'GIT_DIR');
    const linked = join(makeTempDir(), 'linked');
    git(dir, 'worktree', 'add', '-q', linked, 'main');
    assert.is(branchFromFiles(linked, env, 'main'), null, "a linked worktree's .git file");
  },
);

head.run();

const files = suite('run files');
files.after.each(cleanupTempDirs);

files('journal, .gitignore, pinned revision and timeout file', () => {
  const paths = statePaths(join(makeTempDir(), '.tdd'));
  assert.is(readJournal(paths, 3), null);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(join(paths.dir, 'issue-3-run.json'), '{torn');
  assert.is(readJournal(paths, 3), null);
  writeFileSync(join(paths.dir, 'issue-3-run.json'), '{"version": 9}');
  assert.is(readJournal(paths, 3), null);
  const journal = {
    version: 1 as const,
    pid: 1,
    base: 'main',
    test_cmd: 't',
    step: "it's",
    phase: 'red' as const,
    attempt: 2,
    stage: 'leaf' as const,
    leaf: 'develop-red-2',
    tree: null,
    phase_base: null,
    reason: null,
    retried: 0,
  };
  writeJournal(paths, 3, journal);
  assert.equal(readJournal(paths, 3), journal);
  // A writer killed at any point leaves the old journal or the new one whole: the next one half-written beside
  // the old (the old is read), the old unlinked before the rename (the next is read); the next save starts afresh.
  const file = join(paths.dir, 'issue-3-run.json');
  const moved = { ...journal, stage: 'developed' as const };
  writeFileSync(`${file}.next`, '{"version": 1, "st');
  assert.equal(readJournal(paths, 3), journal);
  writeJournal(paths, 3, moved);
  assert.equal([readJournal(paths, 3), existsSync(`${file}.next`)], [moved, false]);
  writeFileSync(`${file}.next`, JSON.stringify(journal));
  rmSync(file);
  assert.equal(readJournal(paths, 3), journal);
  writeFileSync(paths.ledger(3), "# Plan\n\n## Steps\n\n- [ ] it's\n");
  assert.is(
    readTddStatus({ cwd: paths.dir, env: { VERI_STATE_DIR: paths.dir }, issue: 3 })[0]?.current?.stage,
    'leaf',
    'status reads the next journal too',
  );
  rmSync(paths.ledger(3));
  removeJournal(paths, 3);
  assert.equal([readJournal(paths, 3), existsSync(`${file}.next`)], [null, false]);
  assert.is(ensureStateGitignore(paths), true);
  assert.is(ensureStateGitignore(paths), false);
  assert.is(readFileSync(join(paths.dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.match(toolchainRevision(), /^[0-9a-f]{40}$|^@leap\/conductor@/);
  assert.equal(
    pinSkillCommit(paths, 3, checkPin(paths, 3, { VERI_SKILL_COMMIT: 'abc123' })),
    { pin: 'abc123', movedFrom: null },
    'the first pin',
  );
  assert.equal(
    pinSkillCommit(paths, 3, checkPin(paths, 3, { VERI_SKILL_COMMIT: 'abc123' })),
    { pin: 'abc123', movedFrom: null },
    'kept at the same revision',
  );
  assert.throws(
    () => checkPin(paths, 3, { VERI_SKILL_COMMIT: 'def456' }),
    (e: Error) =>
      e instanceof UsageError &&
      e.message.includes('pinned at toolchain revision abc123') &&
      e.message.includes('at def456') &&
      e.message.includes('VERI_NEW_SKILL=1'),
  );
  assert.is(readFileSync(paths.skillCommit(3), 'utf8'), 'abc123\n', 'a refused resume leaves the pin');
  assert.equal(pinSkillCommit(paths, 3, checkPin(paths, 3, { VERI_SKILL_COMMIT: 'def456', VERI_NEW_SKILL: '1' })), {
    pin: 'def456',
    movedFrom: 'abc123',
  });
  assert.equal(
    [currentRevision({}), currentRevision({ VERI_SKILL_COMMIT: '' })],
    [toolchainRevision(), toolchainRevision()],
    "without VERI_SKILL_COMMIT, the toolchain's own revision",
  );
  ensureTimeoutFile(paths, 3);
  writeFileSync(paths.timeout(4), '60\n');
  ensureTimeoutFile(paths, 4);
  assert.equal([readFileSync(paths.timeout(3), 'utf8'), readFileSync(paths.timeout(4), 'utf8')], ['900\n', '60\n']);
  assert.is(snapshot(null), null);
  assert.is(snapshot(join(paths.dir, 'nope')), null);
  assert.is(snapshot(paths.timeout(4))?.toString(), '60\n');
});

files('usage sums: only this issue, nulls skipped, torn lines skipped', () => {
  const file = join(makeTempDir(), 'events.jsonl');
  assert.equal(issueCosts(file, 1), []);
  assert.is(hasUsageSince(file, 0, 'x'), false);
  writeFileSync(
    file,
    [
      JSON.stringify({ event: 'usage', issue: 1, leaf: 'develop-red', cost_usd: 0.25 }),
      JSON.stringify({ event: 'usage', issue: 2, leaf: 'develop-red', cost_usd: 9 }),
      JSON.stringify({ event: 'usage', issue: 1, leaf: 'verify-red', cost_usd: null }),
      JSON.stringify({ event: 'usage', issue: 1, leaf: 'develop-red', cost_usd: 0.5 }),
      '{"event":"usage", torn',
    ].join('\n'),
  );
  const costs = issueCosts(file, 1);
  assert.equal(describeSpend(costs), { total: 0.75, text: 'develop-red $0.7500' });
  assert.is(hasUsageSince(file, 0, 'verify-red'), true);
  assert.is(hasUsageSince(file, readFileSync(file).length, 'verify-red'), false);
});

files('a failing CLI in its own words: its answer when it parses, else its last lines', () => {
  const command = createCommandAgent({ name: 'c', command: ['x'], family: 'f' });
  assert.is(
    agentWords(command, 'line 1\nfatal: no network\n', 'warn\nsupervise[x]: exited\n'),
    'line 1\nfatal: no network\nwarn',
  );
  assert.is(agentWords(command, '', ''), '');
  const claude = createClaudeAgent({});
  assert.match(
    agentWords(
      claude,
      '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}\n',
      '',
    ),
    'Not logged in',
  );
  assert.is(agentWords(command, 'x'.repeat(2000), '').length, 601);
  assert.is(bailClass('agent-failed'), 'system');
});

files("prompts: the developer gets the step, the phase and a revision's reason; the planner the criteria", () => {
  const issue = {
    number: 5,
    title: 'T',
    body: 'Body.\n',
    criteria: [
      { index: 1, text: 'one', checked: false },
      { index: 2, text: 'two', checked: true },
    ],
  };
  const red = developerPrompt(issue, "it's `x`", 'red', null);
  assert.match(red, "## Your step\n\nit's `x`\n");
  assert.match(red, 'Write the failing test');
  assert.not.match(red, 'Revision');
  assert.match(
    developerPrompt(issue, 's', 'refactor', { attempt: 3, reason: 'too long' }),
    '## Revision 2\n\nThe verifier rejected the previous attempt, for this reason:\n\ntoo long',
  );
  const plan = plannerPrompt(issue);
  assert.match(plan, '1. one\n2. two (already done)');
  assert.match(plan, '(criterion K)');
});

files.run();

// ---

const orphans = suite('orphaned leaves');
orphans.after.each(cleanupTempDirs);

orphans('the leaves a dead conductor left are found by their pid files and killed with their sessions', async () => {
  const dir = makeTempDir();
  const leaf = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
    env: { ...cleanEnv(), LEAP_LEAF_r1: '1' },
  });
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  writeFileSync(join(dir, 'develop-red.pid'), `999999\nrun=r1\nleaf=${leaf.pid}\n`);
  writeFileSync(join(dir, 'verify-red.pid'), `999999\nrun=r2\n`);
  writeFileSync(join(dir, 'verify-red.exit'), '0\nstatus=exited\n');
  writeFileSync(join(dir, 'develop-green.pid'), `12345\nrun=r3\nleaf=${other.pid}\n`);
  writeFileSync(join(dir, 'issue-1-conductor.pid'), '999999\n');
  writeFileSync(join(dir, 'empty.pid'), '');
  const found = findOrphanLeaves(dir, 999999);
  assert.equal(found, [{ name: 'develop-red', leafPid: leaf.pid as number, marker: 'LEAP_LEAF_r1' }]);
  assert.is(await endOrphanLeaves(found), 1);
  await waitFor(() => !isAlive(leaf.pid as number) || undefined);
  assert.is(isAlive(other.pid as number), true);
  other.kill('SIGKILL');
  assert.equal(findOrphanLeaves(join(dir, 'missing'), 1), []);
  assert.is(await endOrphanLeaves([]), 0);
});

orphans.run();

// ---

const status = suite('readTddStatus');
status.after.each(cleanupTempDirs);

status('no state folder; a ledger with no journal; torn log lines; an unreadable stop', () => {
  const repo = makeTempDir();
  mkdirSync(join(repo, '.git'));
  assert.equal(readTddStatus({ cwd: repo, env: {} }), []);
  assert.match(formatTddStatus([]), 'no runs');
  mkdirSync(join(repo, '.tdd'));
  writeFileSync(join(repo, '.tdd/issue-2.md'), '# P\n\n## Steps\n\n- [x] one\n- [ ] two\n');
  writeFileSync(
    join(repo, '.tdd/events.jsonl'),
    '{"event":"verdict", torn\n{"event":"verdict","issue":2,"step":"one","phase":"green","verdict":"REJECT","reason":"no\\nmore"}\n',
  );
  writeFileSync(join(repo, '.tdd/stop'), 'whenever\n');
  writeFileSync(join(repo, '.tdd/issue-2-run.json'), '{torn');
  writeFileSync(join(repo, '.tdd/issue-2-conductor.pid'), '999999\n');
  writeFileSync(join(repo, '.tdd/develop-red.pid'), `${process.pid}\nleaf=${process.pid}\n`);
  const [s] = readTddStatus({ cwd: repo, env: {} });
  assert.equal(s?.current, { index: 2, step: 'two', phase: null, attempt: null, stage: null });
  assert.is(s?.stop, 'unreadable');
  assert.is(s?.conductor, null);
  assert.is(s?.lastVerdict?.verdict, 'REJECT');
  assert.equal(
    s?.running.map((r) => r.leaf),
    ['develop-red'],
  );
  const text = formatTddStatus([
    s!,
    { ...s!, issue: 3, steps: [], current: null },
    { ...s!, issue: 4, current: null, running: [{ leaf: 'x', pid: 1, elapsedMs: 125_000 }] },
  ]);
  assert.match(text, 'issue 2: step 2/2 "two"; 1 done\n  conductor: not running\n  running: develop-red');
  assert.match(text, '  last verdict: green REJECT: no\n  stop pending: unreadable');
  assert.match(text, 'issue 3: no ledger yet');
  assert.match(text, 'issue 4: done, 1/2 steps');
  assert.match(text, 'for 2 min 5 s');
});

status(
  'a run that stopped shows as stopped, with its mode, until a leaf is launched again; a bail since is the bail',
  () => {
    const repo = makeTempDir();
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, '.tdd'));
    writeFileSync(join(repo, '.tdd/issue-1.md'), '# P\n\n## Steps\n\n- [ ] one\n');
    const ev = (fields: Record<string, unknown>) =>
      `${JSON.stringify({ ts: '2026-12-01T10:00:00.000Z', issue: 1, step: 'one', skill_commit: null, ...fields })}\n`;
    const stopped =
      ev({ event: 'stop', mode: 'now', action: 'honoured' }) + ev({ event: 'stop', mode: 'now', action: 'cleared' });
    const read = (log: string) => {
      writeFileSync(join(repo, '.tdd/events.jsonl'), log);
      return readTddStatus({ cwd: repo, env: {} })[0];
    };
    const s = read(stopped);
    assert.equal(
      [s?.stop, s?.stopped, s?.bail],
      [null, { mode: 'now', at: '2026-12-01T10:00:00.000Z', step: 'one' }, null],
    );
    assert.match(
      formatTddStatus([s!]),
      '  stopped: now in "one" at 2026-12-01T10:00:00.000Z; leap tdd run --issue 1 resumes it',
    );
    assert.is(read(stopped + ev({ event: 'launch', leaf: 'develop-red', pid: 1, cmd: [] }))?.stopped, null);
    const bailed = read(stopped + ev({ event: 'bail', cause: 'dirty-tree', class: 'process', message: 'x' }));
    assert.equal([bailed?.stopped, bailed?.bail?.cause], [null, 'dirty-tree']);
    assert.is(read(ev({ event: 'stop', mode: null, action: 'honoured' }))?.stopped?.mode, 'signal');
  },
);

status.run();

// ---

const roles = suite('resolveRunAgents: the roles an agents file gives');
roles.after.each(cleanupTempDirs);

roles(
  'entries named developer, verifier, planner take those roles unasked; "roles" and the options win over them',
  () => {
    const dir = makeTempDir();
    const entry = (family: string) => ({ plugin: 'command', family, command: ['true'] });
    const file = join(dir, 'agents.json');
    writeFileSync(
      file,
      JSON.stringify({
        agents: { developer: entry('a'), verifier: entry('b'), planner: entry('a'), other: entry('c') },
      }),
    );
    const named = resolveRunAgents({ agentsFile: file }, {});
    assert.equal([named.developer.name, named.verifier.name, named.planner.name], ['developer', 'verifier', 'planner']);
    const given = resolveRunAgents({ agentsFile: file, verifier: 'other' }, {});
    assert.is(given.verifier.name, 'other');
    writeFileSync(
      file,
      JSON.stringify({
        agents: { developer: entry('a'), verifier: entry('b'), other: entry('c') },
        roles: { verifier: ['other'] },
      }),
    );
    assert.is(resolveRunAgents({ agentsFile: file }, {}).verifier.name, 'other');
  },
);

roles.run();

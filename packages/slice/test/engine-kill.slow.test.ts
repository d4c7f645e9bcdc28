import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slicePaths } from '@leap/core';
import { cleanupTempDirs, git, lifelineOf, waitFor } from '@leap/test-utils';
import {
  ball,
  contentProof,
  engineEnv,
  extraWorktrees,
  fixtures,
  launches,
  leapSlice,
  readLeap,
  setupRepo,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };

function trio(dir: string) {
  return writeSlice(dir, {
    id: 'trio',
    balls: [
      ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
      ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
      ball('c', ['src/c.txt'], BASE, {
        deps: ['a', 'b'],
        proof: { argv: contentProof({ 'src/c.txt': 'C\n', 'src/a.txt': 'A\n' }) },
      }),
    ],
  });
}

const slow = (sleep: number) => ({
  a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }], sleep_ms: sleep } },
  b: { '*': { edits: [{ path: 'src/b.txt', content: 'B\n' }], sleep_ms: sleep * 2 } },
  c: { '*': { edits: [{ path: 'src/c.txt', content: 'C\n' }], sleep_ms: sleep } },
});

const ARGS = (file: string, agents: string) => [
  'run',
  file,
  '--jobs',
  '2',
  '--agents',
  agents,
  '--builder',
  'b',
  '--reviewers',
  'r1,r2',
];

/** A real `leap slice run` process. */
function startEngine(repo: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(fixtures, 'leap-slice.ts'), ...args], {
    cwd: repo,
    env: engineEnv(),
    stdio: 'ignore',
  });
}

/**
 * SIGKILL the engine once `moment` holds; true when it was still running then, else what happened
 * instead (its exit code and each ball's result so far), for the assertion's message.
 */
async function killWhen(repo: string, engine: ChildProcess, moment: () => boolean): Promise<true | string> {
  const ended = new Promise((r) => engine.once('exit', r));
  const caught = await waitFor(() => moment() || engine.exitCode !== null, 60_000).catch(() => false);
  const running = engine.exitCode === null && caught;
  engine.kill('SIGKILL');
  await ended;
  if (running) return true;
  const results = ['a', 'b', 'c'].map((b) => `${b}: ${JSON.stringify(readLeap(repo, 'trio', b, 'result.json'))}`);
  return `the engine ${caught ? `had exited with code ${engine.exitCode}` : 'was still running after 60 s'}; ${results.join('; ')}`;
}

const kill = suite('a killed engine, run again');
kill.after.each(cleanupTempDirs);

kill(
  'SIGKILL while building, after a ball passed, and during the aggregate jury: no worktree left, nothing passed rebuilt, the same end',
  async () => {
    // The end of an uninterrupted run, for comparison.
    const ref = setupRepo(BASE);
    const refOut = await leapSlice(ref.repo, ARGS(trio(ref.dir), writeAgents(ref.dir, slow(0))));
    assert.is(refOut.code, 0, refOut.stderr);
    const refTree = git(ref.repo, 'rev-parse', 'leap/trio/spine^{tree}').trim();

    const { repo, dir } = setupRepo(BASE);
    const file = trio(dir);
    const agents = writeAgents(dir, slow(1500), {}, { REVIEW_SLEEP_MS: '700' });
    const leapDir = join(repo, '.leap', 'trio');
    const clean = async (when: string) => {
      const status = await leapSlice(repo, ['status', file]);
      assert.is(status.code, 0, status.stderr);
      assert.equal(extraWorktrees(repo), [], `no worktree left ${when}`);
    };

    // 1. While the first builders run.
    assert.is(
      await killWhen(repo, startEngine(repo, ARGS(file, agents)), () =>
        existsSync(join(repo, '.tdd', 'build-a-1.pid')),
      ),
      true,
      'killed while building',
    );
    await clean('after a kill while building');
    assert.is(readLeap(repo, 'trio', 'a', 'result.json'), null);

    // 2. Once ball a passed, with b still building.
    assert.is(
      await killWhen(
        repo,
        startEngine(repo, ARGS(file, agents)),
        () => readLeap<{ receipt: number }>(repo, 'trio', 'a', 'result.json')?.receipt === 1,
      ),
      true,
      'killed after a passed',
    );
    await clean('after a kill between balls');
    const builtA = launches(repo, 'build-a-').length;

    // 3. During the aggregate jury, on the spine's worktree.
    assert.is(
      await killWhen(repo, startEngine(repo, ARGS(file, agents)), () =>
        existsSync(slicePaths(repo, 'trio').worktree('spine')),
      ),
      true,
      'killed during the aggregate jury',
    );
    await clean('after a kill during the aggregate jury');
    assert.not.ok(existsSync(join(leapDir, 'record.json')), 'no record before the aggregate jury passed');

    // Run to the end: what passed is not rebuilt, and the end is the uninterrupted run's.
    const end = await leapSlice(repo, ARGS(file, agents));
    assert.is(end.code, 0, end.stderr);
    assert.match(end.stderr, /ball a: passed on an earlier run/);
    assert.is(launches(repo, 'build-a-').length, builtA, 'ball a was not rebuilt after it passed');
    assert.is(git(repo, 'rev-parse', 'leap/trio/spine^{tree}').trim(), refTree);
    const merges = git(repo, 'log', '--first-parent', '--format=%s', 'leap/trio/spine').trim().split('\n');
    assert.equal(
      merges,
      [
        'leap: merge c onto the spine of trio',
        'leap: merge b onto the spine of trio',
        'leap: merge a onto the spine of trio',
        'initial',
      ],
      'each ball merged once',
    );
    const record = readLeap<{ balls: { candidate: string; receipts: { candidate: string }[] }[] }>(
      repo,
      'trio',
      'record.json',
    );
    assert.ok(record?.balls.every((b) => b.receipts.every((r) => r.candidate === b.candidate)));
    assert.equal(extraWorktrees(repo), []);
    assert.is(
      git(repo, 'status', '--porcelain', '--untracked-files=all')
        .split('\n')
        .filter((l) => l !== '' && !l.endsWith('record.json'))
        .join('\n'),
      '',
    );
  },
);

kill('a second engine on a running slice is refused, naming the live one; its worktrees are left alone', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = trio(dir);
  const agents = writeAgents(dir, slow(2000));
  const engine = startEngine(repo, ARGS(file, agents));
  await waitFor(() => existsSync(join(repo, '.tdd', 'build-a-1.pid')), 30_000);
  const second = await leapSlice(repo, ARGS(file, agents));
  assert.is(second.code, 2);
  assert.match(second.stderr, new RegExp(`slice "trio" is being run by live process ${engine.pid}`));
  assert.ok(extraWorktrees(repo).length > 0, "the live engine's worktrees stay");
  const ended = new Promise((r) => engine.once('exit', r));
  engine.kill('SIGTERM');
  await ended;
  // SIGTERM: the leaves in flight end, the balls are held, the worktrees removed by the engine itself.
  assert.is(engine.exitCode, 3);
  assert.equal(extraWorktrees(repo), []);
  assert.match(readLeap<{ reason: string }>(repo, 'trio', 'a', 'result.json')?.reason ?? '', /interrupted|SIGTERM/);
});

/** The leaf pid NAME.pid records (the process group the supervisor started), or null before it is written. */
function leafPid(repo: string, name: string): number | null {
  const file = join(repo, '.tdd', `${name}.pid`);
  const found = existsSync(file) ? /^leaf=(\d+)$/m.exec(readFileSync(file, 'utf8')) : null;
  return found === null ? null : Number(found[1]);
}

/** Whether `pid` is a process that still runs (not gone, not a zombie). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

kill(
  'a leaf the SIGKILLed engine left running is ended at once by its lifeline, and the next run resumes',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = trio(dir);
    // Outside a sandbox, in a session of its own, a builder outlives its engine's SIGKILL (so can a sandbox's init,
    // when bwrap's parent dies before the sandbox has asked to die with it): the engine's lifeline ends it.
    const engine = startEngine(repo, [...ARGS(file, writeAgents(dir, slow(60_000))), '--sandbox', 'off']);
    assert.is(await killWhen(repo, engine, () => leafPid(repo, 'build-a-1') !== null), true, 'killed while building');
    const orphan = leafPid(repo, 'build-a-1') as number;
    await waitFor(() => !running(orphan), 15_000).catch(() => {});
    assert.not.ok(running(orphan), 'the builder the killed engine left is ended by its lifeline, with no run after it');
    const again = await leapSlice(repo, [...ARGS(file, writeAgents(dir, slow(0))), '--sandbox', 'off']);
    assert.is(again.code, 0, again.stderr);
    assert.equal(extraWorktrees(repo), []);
  },
);

kill(
  'with its lifeline killed too, a leaf the SIGKILLed engine left running is ended by the next run before it touches the worktrees',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = trio(dir);
    // Kill once both builders read their plan and park: one still starting would read the next run's plan and exit.
    const here = (b: string) => join(dir, `${b}.here`);
    const park = (b: string) => ({ '*': { here: here(b), wait_for: join(dir, 'never') } });
    const agents = writeAgents(dir, { a: park('a'), b: park('b') });
    const engine = startEngine(repo, [...ARGS(file, agents), '--sandbox', 'off']);
    const dead = engine.pid as number;
    assert.is(
      await killWhen(repo, engine, () => {
        if (!existsSync(here('a')) || !existsSync(here('b')) || leafPid(repo, 'build-a-1') === null) return false;
        // As a kill of everything the user runs would: the lifeline first, then the engine.
        const lines = lifelineOf(dead);
        for (const pid of lines) process.kill(-pid, 'SIGKILL');
        return lines.length > 0;
      }),
      true,
      'killed while building, its lifeline first',
    );
    const orphan = leafPid(repo, 'build-a-1') as number;
    assert.ok(running(orphan), 'the builder outlived its engine and its lifeline');
    const again = await leapSlice(repo, [...ARGS(file, writeAgents(dir, slow(0))), '--sandbox', 'off']);
    assert.is(again.code, 0, again.stderr);
    assert.match(
      again.stderr,
      new RegExp(`resuming after engine ${dead} died: ended [1-9]\\d* process(es)? of [^\\n]*build-a-1`),
    );
    assert.not.ok(running(orphan), 'the builder the killed engine left is gone');
    assert.equal(extraWorktrees(repo), []);
  },
);

kill.run();

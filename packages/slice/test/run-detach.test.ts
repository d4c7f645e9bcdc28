// `leap slice run --detach` with real processes: the run outlives a SIGKILL of its caller's whole process group
// and finishes, `leap slice status` sees it; a second start while it runs is refused naming it; a run that fails
// at once is reported with its own error and code, and leaves nothing.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, fromHarness, git, isAlive, repoRoot, runBin, waitFor } from '@leap/test-utils';
import { ball, contentProof, engineEnv, setupRepo, writeAgents, writeSlice } from './engine-helpers.js';

const LEAP = join(repoRoot, 'packages/cli/dist/bin/leap.cjs');
const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };

const detach = suite('leap slice run --detach');
detach.after.each(cleanupTempDirs);

function project(sleepMs: number) {
  const { repo, dir } = setupRepo(BASE);
  // A slice file whose name a shell would take apart: $, backticks, quotes, non-ASCII.
  const file = writeSlice(
    dir,
    { id: 'solo', balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })] },
    "slice $HOME `id` 'q' é.json",
  );
  const agents = writeAgents(dir, {
    a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }], sleep_ms: sleepMs } },
  });
  const args = ['slice', 'run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2'];
  return { repo, file, args, env: engineEnv(), dir: join(repo, '.tdd/detached/slice-solo') };
}

detach(
  "the run outlives a SIGKILL of the caller's whole process group, finishes, and leap slice status sees it",
  async () => {
    const p = project(1500);
    const harness = await fromHarness([process.execPath, LEAP, ...p.args, '--detach'], p.repo, p.env);
    assert.is(harness.code, 0, harness.out);
    const line =
      /^slice solo: run started detached, pid (\d+) \(supervisor (\d+)\); poll: leap slice status (.+); output: (.+) and (.+)\n$/.exec(
        harness.out,
      );
    assert.ok(line !== null, harness.out);
    const pid = Number(line?.[1]);
    assert.is(line?.[3], `'${p.file.replace(/'/g, `'\\''`)}'`, 'the file, quoted as a shell reads it back');
    assert.equal([line?.[4], line?.[5]], [join(p.dir, 'run.out'), join(p.dir, 'run.err')]);
    process.kill(-harness.group, 'SIGKILL');
    await waitFor(() => !isAlive(harness.group), 5000, 'the harness gone');
    assert.ok(isAlive(pid), 'the run lives on');
    const status = await runBin(LEAP, ['slice', 'status', p.file, '--json'], { cwd: p.repo, env: p.env });
    assert.is(status.code, 0, status.stderr);
    assert.is((JSON.parse(status.stdout) as { engine: unknown }).engine !== null, true, status.stdout);
    const exit = join(p.dir, 'run.exit');
    await waitFor(() => existsSync(exit), 120_000, 'the detached run ends');
    assert.is(readFileSync(exit, 'utf8').split('\n')[0], '0', readFileSync(join(p.dir, 'run.err'), 'utf8'));
    assert.is(git(p.repo, 'show', 'leap/solo/spine:src/a.txt'), 'A\n');
    assert.ok(existsSync(join(p.repo, '.leap/solo/record.json')), 'the slice passed');
  },
);

detach('a second --detach while one runs is refused (exit 2) naming the running one', async () => {
  const p = project(4000);
  const first = await runBin(LEAP, [...p.args, '--detach', '--json'], { cwd: p.repo, env: p.env });
  assert.is(first.code, 0, first.stderr);
  const started = JSON.parse(first.stdout) as { pid: number; slice: string; out: string; wait: string };
  assert.equal([started.slice, started.out], ['solo', join(p.dir, 'run.out')]);
  const second = await runBin(LEAP, [...p.args, '--detach'], { cwd: p.repo, env: p.env });
  assert.is(second.code, 2, second.stderr);
  assert.match(second.stderr, `slice "solo" is being run by live process ${started.pid}`);
  const waited = await runBin(join(repoRoot, 'packages/supervise/bin/leap-wait.cjs'), ['run', '120'], {
    cwd: p.repo,
    env: { ...p.env, VERI_STATE_DIR: p.dir },
  });
  assert.is(waited.code, 0, `the first ends as usual: ${waited.stderr}`);
});

detach(
  'a run that fails at once after forking is reported with its own error and code, and leaves nothing',
  async () => {
    const p = project(0);
    const before = git(p.repo, 'status', '--porcelain', '--ignored');
    const unknown = await runBin(LEAP, ['slice', 'run', p.file, '--builder', 'nosuch', '--detach'], {
      cwd: p.repo,
      env: p.env,
    });
    assert.is(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, 'nosuch');
    assert.not.match(unknown.stderr, 'supervise[run]');
    assert.is(git(p.repo, 'status', '--porcelain', '--ignored'), before, 'nothing left');
    const missing = await runBin(LEAP, ['slice', 'run', join(p.repo, 'no-such.json'), '--detach'], {
      cwd: p.repo,
      env: p.env,
    });
    assert.is(missing.code, 2, 'an unreadable slice file: refused before forking');
  },
);

detach.run();

// The sandbox's cost per leaf (CONTRACT section 13, issue 25): `leap-supervise --sandbox writer NAME true`
// against the same `leap-supervise NAME true` unsandboxed, timed back to back in each run (the pair cancels
// the machine's drifts); budget: at most 10 ms more per leaf. Also the reader (its copy of a small tree made
// and removed around the leaf), and bare bwrap with the same mounts, the floor of any bwrap sandbox here.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export default async function sandbox(ctx) {
  const supervise = ctx.bin('supervise', 'leap-supervise');
  if (!ctx.has(supervise)) {
    ctx.note('sandbox: packages/supervise/dist/bin/leap-supervise.cjs is not built; skipped');
    return;
  }
  const bwrap = spawnSync('bash', ['-c', 'type -P bwrap'], { encoding: 'utf8' }).stdout.trim();
  if (bwrap === '') {
    ctx.note('sandbox: bwrap is not installed (apt-get install bubblewrap); skipped');
    return;
  }
  // A small repository of the usual shape: sources, tests, a state folder, node_modules (linked, not copied).
  const repo = join(ctx.tmp, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  for (let i = 0; i < 50; i++) writeFileSync(join(repo, 'src', `m${i}.ts`), `export const m${i} = ${i};\n`);
  for (let i = 0; i < 200; i++) writeFileSync(join(repo, 'node_modules', 'dep', `f${i}.js`), 'module.exports = 1;\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  const env = { ...process.env, VERI_STATE_DIR: join(repo, '.tdd') };
  const run = (_label, args) =>
    ctx.timeRuns(ctx.RUNS, [process.execPath, supervise, ...args], {
      base: [process.execPath, supervise, 'bench-plain', 'true'],
      env,
      cwd: repo,
      expect: 0,
    });
  const [plain, writer] = run('writer', ['--sandbox', 'writer', 'bench-writer', 'true']);
  const extra = writer.map((t, i) => t - plain[i]);
  const cost = ctx.median(extra);
  const [q1, q3] = ctx.quartiles(extra);
  // The floor: bwrap alone with the mounts a writer gets here, against `true` alone. Two of them: the tree's
  // own mounts only, and the exact command line the supervisor runs for this leaf (its home masked, its
  // state folder hidden: what prepareSandbox plans on this machine), so what is left is the toolchain's own.
  const minimal = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    '--bind',
    repo,
    repo,
    '--ro-bind',
    join(repo, '.git'),
    join(repo, '.git'),
    '--tmpfs',
    join(repo, '.tdd'),
    '--remount-ro',
    join(repo, '.tdd'),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--',
    'true',
  ];
  const [bare, wrapped] = ctx.timeRuns(ctx.RUNS, [bwrap, ...minimal], { base: ['true'] });
  const floorMinimal = ctx.median(wrapped.map((t, i) => t - bare[i]));
  const { prepareSandbox } = await import(join(ctx.root, 'packages', 'supervise', 'dist', 'index.js'));
  const planned = prepareSandbox({ role: 'writer', tree: repo, hide: [join(repo, '.tdd')] }, 'true', [], env, bwrap);
  const [bare2, exact] = ctx.timeRuns(ctx.RUNS, [planned.command, ...planned.args], {
    base: ['true'],
    env: planned.env,
    cwd: repo,
  });
  planned.cleanup();
  const floor = ctx.median(exact.map((t, i) => t - bare2[i]));
  // The same from the smallest Node program that can run it as the supervisor does (detached, bwrap's status on
  // fd 3 in an unlinked file, the exit awaited), against that program running `true`: what Node's spawn of the
  // larger command line adds to bwrap's own cost, before any planning.
  const withStatus = prepareSandbox(
    { role: 'writer', tree: repo, hide: [join(repo, '.tdd')] },
    'true',
    [],
    env,
    bwrap,
    { statusFd: 3 },
  );
  withStatus.cleanup();
  const runner = join(ctx.tmp, 'smallest-sandboxed-spawn.cjs');
  writeFileSync(
    runner,
    [
      "const { spawn } = require('node:child_process');",
      "const fs = require('node:fs');",
      'const argv = JSON.parse(process.argv[2]);',
      "const file = require('node:path').join(require('node:os').tmpdir(), `status-${process.pid}`);",
      "const fd = fs.openSync(file, 'wx+');",
      'fs.unlinkSync(file);',
      "spawn(argv[0], argv.slice(1), { detached: true, stdio: ['inherit', 'inherit', 'inherit', fd], env: process.env }).on('exit', (code) => { process.exitCode = code; });",
      '',
    ].join('\n'),
  );
  const [nodeBare, nodeWrapped] = ctx.timeRuns(
    ctx.RUNS,
    [process.execPath, runner, JSON.stringify([withStatus.command, ...withStatus.args])],
    {
      base: [process.execPath, runner, JSON.stringify(['true'])],
      env: withStatus.env,
      cwd: repo,
    },
  );
  const nodeFloor = ctx.median(nodeWrapped.map((t, i) => t - nodeBare[i]));
  ctx.note(
    `sandbox: writer leaf costs ${cost.toFixed(1)} ms more than unsandboxed (middle half ${q1.toFixed(1)}-${q3.toFixed(1)} ms; unsandboxed median ${ctx.median(plain).toFixed(1)} ms); bwrap alone with the tree's mounts, against \`true\` alone: ${floorMinimal.toFixed(1)} ms; bwrap alone with the very command line the supervisor plans for this leaf (${planned.args.filter((a) => a.startsWith('--') && a.includes('bind')).length} binds: the home folder masked entry by entry, the state folder hidden): ${floor.toFixed(1)} ms (the floor of this leaf's sandbox); the same command line spawned by the smallest Node program that can (detached, its status to a file), against that program spawning \`true\`: ${nodeFloor.toFixed(1)} ms; the toolchain's own share ${(cost - floor).toFixed(1)} ms over bwrap alone, ${(cost - nodeFloor).toFixed(1)} ms over the smallest Node program (planning the mounts, reading bwrap's status, waiting for its pid 1)`,
  );
  // The floor is bwrap alone with the very command line the supervisor plans for this leaf: the smallest thing
  // that can make this sandbox (its home masked, its state folder hidden), timed against `true` alone in the same
  // runs. Where bwrap alone costs more than the budget, no supervisor can meet it on this machine (2026-12-05:
  // `bwrap --ro-bind / / true` alone was 9 ms over `true`, the planned line 15 ms). The smallest Node program's
  // figure is beside it in the note; it is the same work plus Node's spawn, and noisier.
  ctx.check(
    'sandboxed `leap-supervise --sandbox writer NAME true` against the same unsandboxed, run by run (median paired difference)',
    cost.toFixed(1),
    '<= 10 ms',
    cost <= 10,
    ' ms',
    {
      value: `${floor.toFixed(1)} ms, bwrap alone with the same command line`,
      below: floor > 10,
    },
  );
  // As the conductor and the engine start leaves: supervise() in their own process, the plan's code warm after the
  // first leaf. Paired run by run in this process, the first pair left out.
  const { supervise: superviseLeaf } = await import(join(ctx.root, 'packages', 'supervise', 'dist', 'index.js'));
  const inProcess = [];
  for (let i = 0; i <= ctx.RUNS; i++) {
    const t0 = performance.now();
    await superviseLeaf({ name: `bench-ip-plain-${i}`, command: 'true', cwd: repo, env });
    const t1 = performance.now();
    await superviseLeaf({
      name: `bench-ip-sbx-${i}`,
      command: 'true',
      cwd: repo,
      env,
      sandbox: { role: 'writer', tree: repo },
    });
    const t2 = performance.now();
    if (i > 0) inProcess.push(t2 - t1 - (t1 - t0));
  }
  ctx.note(
    `sandbox: in one process (supervise() as the conductor and the engine call it, after the first leaf), a sandboxed writer leaf costs ${ctx.median(inProcess).toFixed(1)} ms more than an unsandboxed one (median of ${inProcess.length} pairs); the CLI's figure above also pays the plan's first run in a fresh Node`,
  );
  const [plain2, reader] = run('reader', ['--sandbox', 'reader', 'bench-reader', 'true']);
  const readerCost = ctx.median(reader.map((t, i) => t - plain2[i]));
  ctx.note(
    `sandbox: reader leaf (a copy of 50 source files made and removed, node_modules of 200 files linked read-only) costs ${readerCost.toFixed(1)} ms more than unsandboxed`,
  );
  const [plain3, off] = run('network off', ['--sandbox', 'writer', '--network', 'off', 'bench-offline', 'true']);
  ctx.note(
    `sandbox: writer with network off (a network namespace of its own) costs ${ctx.median(off.map((t, i) => t - plain3[i])).toFixed(1)} ms more than unsandboxed`,
  );
}

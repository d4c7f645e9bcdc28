// Bench of the bullmq runner (@leap/runner-bullmq): LEAP balls spread over `leap worker`s through a BullMQ
// queue on a real redis-server (127.0.0.1, a free port, no persistence), each worker in a folder of its own
// standing in for a machine, the shared remote a bare repository. What issue 26 section 4 names:
//  - Spread: 16 balls whose builders each wait 2 s (reviewers answer at once) on 4 workers (--jobs 1 each),
//    the engine with --jobs 16: flat (16 independent balls) and in four dependent waves of four (each ball of a
//    wave depends on every ball of the wave before), each against the ideal, the total builder time / 4 = 8 s:
//    at most 1.15x flat, 1.3x in waves.
//  - A wave boundary's own cost through the queue: (waves - flat) / 3, the median runs of each; at most 300 ms.
//    Beside each, its floor: the same slices on the local runner with --jobs 4 (the round's own leaves, proofs,
//    jury, records and merges on this machine, no queue).
//  - The serial cost per ball through the queue: 8 balls whose builders and reviewers answer at once, one worker
//    --jobs 1 and the engine --jobs 1, against the local runner's on the same slice: wall time less every leaf's
//    own time (the exit events' duration_ms) and every proof's, per ball; at most 250 ms more.
//  - Scaling: flat slices of 16 and of 200 balls whose builders return at once, on the local runner and on 4
//    workers, --jobs 4: the engine's own cost per ball, as the engine process's CPU time (user + system, its
//    children not counted: every leaf, git and the workers run elsewhere), within 1.2x of the 16-ball figure:
//    the 200-ball run's CPU beyond the 16-ball run's, per extra ball, against the 16-ball run's per ball (the
//    start-up is paid once by both, so the extra balls alone show whether a cost grows worse than linearly);
//    and `leap slice status` of each, per ball, the same way.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BALLS, gitIn, makeRepo, ownCostPerBall, writeAgentsFile, writeSliceFile } from './_slice-balls.js';

const REDIS = '/usr/bin/redis-server';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function startRedis(dir) {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

// The shared remote (a bare repository) and the engine's clone of it.
function makeRemote(dir) {
  const seed = join(dir, 'seed');
  const g = makeRepo(seed);
  const remote = join(dir, 'shared.git');
  g('clone', '-q', '--bare', seed, remote);
  const repo = join(dir, 'engine');
  execFileSync('git', ['clone', '-q', remote, repo], { stdio: 'ignore' });
  gitIn(repo)('config', 'user.name', 'Bench');
  gitIn(repo)('config', 'user.email', 'bench@test.invalid');
  return { remote, repo };
}

const SPREAD_BALLS = 16;
const SPREAD_WORKERS = 4;
const BUILD_S = 2;
const SCALE_BALLS = 200;

export default async function runnerBullmq(ctx) {
  const workerCli = join(ctx.root, 'plugins', 'runner-bullmq', 'dist', 'cli.js');
  const sliceCli = join(ctx.root, 'packages', 'slice', 'dist', 'cli.js');
  const coreJs = join(ctx.root, 'packages', 'core', 'dist', 'index.js');
  if (!ctx.has(workerCli, sliceCli, coreJs)) {
    ctx.note('runner-bullmq: plugins/runner-bullmq or packages/slice is not built; skipped');
    return;
  }
  if (!ctx.has(REDIS)) {
    ctx.note(`runner-bullmq: ${REDIS} is not installed (apt-get install redis-server); skipped`);
    return;
  }
  // The engine's entry writes its own CPU time (process.cpuUsage: this process only, no child) to BENCH_CPU_FILE at exit.
  const entry = (cli, name) => [
    process.execPath,
    '--input-type=module',
    '-e',
    `const m = await import(${JSON.stringify(cli)}); const { processSubcommandIo } = await import(${JSON.stringify(coreJs)}); const fs = await import('node:fs'); process.on('exit', () => { if (process.env.BENCH_CPU_FILE) fs.writeFileSync(process.env.BENCH_CPU_FILE, JSON.stringify(process.cpuUsage())); }); process.exitCode = await m.${name}(process.argv.slice(1), processSubcommandIo());`,
    '--',
  ];
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith('VERI_') || key.startsWith('LEAP_BULLMQ_') || key === 'BENCH_CPU_FILE') delete env[key];
  // Engine and workers sign jobs and results with one secret (CONTRACT section 11).
  env.LEAP_QUEUE_SECRET = 'bench-queue-secret-0123456789';
  const redis = await startRedis(join(ctx.tmp, 'redis'));
  let n = 0;
  // Each worker builds with its own agents file (jobs carry none): here the run's. Started together, each ready when it says so.
  const workersUp = async (remote, count, jobs, agents) => {
    const workers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const dir = join(ctx.tmp, `machine-${n}-${i}`);
        mkdirSync(dir, { recursive: true });
        const [cmd, ...args] = entry(workerCli, 'workerCommand');
        const child = spawn(
          cmd,
          [
            ...args,
            '--redis',
            redis.url,
            '--repo',
            remote,
            '--jobs',
            String(jobs),
            '--dir',
            join(dir, 'w'),
            '--name',
            `m${i}`,
            '--agents',
            agents,
          ],
          {
            cwd: dir,
            env,
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        let err = '';
        await new Promise((resolve, reject) => {
          child.stderr.on('data', (b) => {
            err += b;
            if (err.includes('waiting for rounds')) resolve();
          });
          child.on('exit', (code) => reject(new Error(`leap worker exited ${code}: ${err}`)));
        });
        return child;
      }),
    );
    return async () => {
      await Promise.all(
        workers.map(
          (w) =>
            new Promise((r) => {
              w.once('exit', r);
              w.kill('SIGTERM');
            }),
        ),
      );
    };
  };
  // One slice run, through `leap slice run` as a process; `runner` null: the local runner.
  const runSlice = async (buildSleep, runner, jobs, shape = {}) => {
    const dir = join(ctx.tmp, `run-${n++}`);
    mkdirSync(dir, { recursive: true });
    const { remote, repo } = makeRemote(dir);
    const file = writeSliceFile(dir, `s${n}`, shape);
    const agents = writeAgentsFile(dir, buildSleep);
    const down = runner === null ? async () => {} : await workersUp(remote, runner.workers, runner.jobs, agents);
    const [cmd, ...args] = entry(sliceCli, 'sliceCommand');
    const extra = runner === null ? [] : ['--runner', 'bullmq', '--redis', redis.url];
    const cpuFile = join(dir, 'engine-cpu.json');
    const t0 = process.hrtime.bigint();
    const r = spawnSync(
      cmd,
      [
        ...args,
        'run',
        file,
        '--jobs',
        String(jobs),
        '--agents',
        agents,
        '--builder',
        'builder',
        '--reviewers',
        'r1,r2',
        '--json',
        ...extra,
      ],
      {
        cwd: repo,
        env: { ...env, BENCH_CPU_FILE: cpuFile },
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    await down();
    if (r.status !== 0) throw new Error(`leap slice run exited ${r.status}: ${r.stderr}`);
    const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { repo, file, wall, slice: `s${n}`, balls: shape.count ?? BALLS, cpu: (user + system) / 1000 };
  };
  // `leap slice status FILE --json` of a finished run: its wall time (ms) and its own CPU.
  const status = ({ repo, file }) => {
    const [cmd, ...args] = entry(sliceCli, 'sliceCommand');
    const cpuFile = join(repo, '..', `status-cpu-${n++}.json`);
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, [...args, 'status', file, '--json'], {
      cwd: repo,
      env: { ...env, BENCH_CPU_FILE: cpuFile },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`leap slice status exited ${r.status}: ${r.stderr}`);
    const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { wall, cpu: (user + system) / 1000 };
  };
  const list = (xs, digits = 2) => xs.map((x) => x.toFixed(digits)).join(', ');
  try {
    // --- 16 two-second balls on 4 workers, flat and in four waves, the two alternated so the VM's drift falls on both
    const ideal = (SPREAD_BALLS * BUILD_S) / SPREAD_WORKERS;
    const flat = [];
    const waves = [];
    // The same slices on the local runner with --jobs 4: the floor of the round itself on this machine (its
    // leaves, proofs and jury, the engine's records and merges), with no queue.
    const localFlat = [];
    const localWaves = [];
    const spread = { workers: SPREAD_WORKERS, jobs: 1 };
    const flatShape = { count: SPREAD_BALLS };
    const waveShape = { count: SPREAD_BALLS, wave: SPREAD_WORKERS };
    for (let i = 0; i < 3; i++) {
      flat.push((await runSlice(BUILD_S, spread, SPREAD_BALLS, flatShape)).wall / 1000);
      waves.push((await runSlice(BUILD_S, spread, SPREAD_BALLS, waveShape)).wall / 1000);
      localFlat.push((await runSlice(BUILD_S, null, SPREAD_WORKERS, flatShape)).wall / 1000);
      localWaves.push((await runSlice(BUILD_S, null, SPREAD_WORKERS, waveShape)).wall / 1000);
    }
    const flatRatio = ctx.median(flat) / ideal;
    const wavesRatio = ctx.median(waves) / ideal;
    const localFlatRatio = ctx.median(localFlat) / ideal;
    const localWavesRatio = ctx.median(localWaves) / ideal;
    const floor = (local, budget) => ({
      value: `the local runner --jobs ${SPREAD_WORKERS}: ${local.toFixed(2)}x`,
      below: local > budget,
    });
    ctx.check(
      `leap slice run --runner bullmq, ${SPREAD_BALLS} balls (builders ${BUILD_S} s), flat, on ${SPREAD_WORKERS} workers: wall time / the ideal (${ideal} s)`,
      flatRatio.toFixed(2),
      'at most 1.15x',
      flatRatio <= 1.15,
      'x',
      floor(localFlatRatio, 1.15),
    );
    ctx.check(
      `leap slice run --runner bullmq, ${SPREAD_BALLS} balls (builders ${BUILD_S} s), four dependent waves of four, on ${SPREAD_WORKERS} workers: wall time / the ideal (${ideal} s)`,
      wavesRatio.toFixed(2),
      'at most 1.3x',
      wavesRatio <= 1.3,
      'x',
      floor(localWavesRatio, 1.3),
    );
    const boundary = ((ctx.median(waves) - ctx.median(flat)) * 1000) / 3;
    const localBoundary = ((ctx.median(localWaves) - ctx.median(localFlat)) * 1000) / 3;
    ctx.check(
      'leap slice run --runner bullmq: a wave boundary through the queue, (four waves - flat) / 3',
      boundary.toFixed(0),
      'at most 300 ms',
      boundary <= 300,
      ' ms',
      {
        value: `the local runner's: ${localBoundary.toFixed(0)} ms`,
        below: localBoundary > 300,
      },
    );
    ctx.note(
      `runner-bullmq spread: ${SPREAD_BALLS} balls of ${BUILD_S} s on ${SPREAD_WORKERS} workers (--jobs 1 each), the engine --jobs ${SPREAD_BALLS}: flat ${ctx.median(flat).toFixed(2)} s (runs ${list(flat)}), four waves of four ${ctx.median(waves).toFixed(2)} s (runs ${list(waves)}); the same on the local runner --jobs ${SPREAD_WORKERS}: flat ${ctx.median(localFlat).toFixed(2)} s (runs ${list(localFlat)}), four waves ${ctx.median(localWaves).toFixed(2)} s (runs ${list(localWaves)}), a wave boundary ${localBoundary.toFixed(0)} ms; the ideal ${ideal} s; wall time from the engine's start to its exit (its start-up, the aggregate jury and the last merge included)`,
    );

    // --- the queue's own cost per ball against the local runner's
    const queued = [];
    const local = [];
    for (let i = 0; i < 3; i++) {
      queued.push(ownCostPerBall(await runSlice(0, { workers: 1, jobs: 1 }, 1)));
      local.push(ownCostPerBall(await runSlice(0, null, 1)));
    }
    const q = ctx.median(queued);
    const l = ctx.median(local);
    ctx.check(
      "leap slice run --runner bullmq: the own cost per ball (all but the builder, the proof and the jury) less the local runner's",
      (q - l).toFixed(1),
      'at most 250 ms',
      q - l <= 250,
      ' ms',
    );
    ctx.note(
      `runner-bullmq own cost: ${q.toFixed(1)} ms per ball through the queue (runs ${list(queued, 1)}) vs ${l.toFixed(1)} ms with the local runner (runs ${list(local, 1)}), ${BALLS} balls, one worker --jobs 1, the engine --jobs 1; the queue's share: the push of the round's commit, the worker's fetch, worktree and push, the engine's fetch back, the job's trip through Redis (its completion heard through the queue's events)`,
    );

    // --- how the engine's cost grows with the balls: 16 and 200 instant balls, local and on 4 workers
    for (const [label, runner] of [
      ['the local runner', null],
      [`${SPREAD_WORKERS} workers`, { workers: SPREAD_WORKERS, jobs: 1 }],
    ]) {
      const small = await runSlice(0, runner, 4, { count: SPREAD_BALLS });
      const big = await runSlice(0, runner, 4, { count: SCALE_BALLS });
      const perSmall = small.cpu / SPREAD_BALLS;
      const perExtra = (big.cpu - small.cpu) / (SCALE_BALLS - SPREAD_BALLS);
      const ratio = perExtra / perSmall;
      ctx.check(
        `leap slice run${runner === null ? '' : ' --runner bullmq'}, ${label}, builders that return at once, --jobs 4: the engine's CPU per ball from ${SPREAD_BALLS} to ${SCALE_BALLS} balls (per extra ball / per ball at ${SPREAD_BALLS})`,
        ratio.toFixed(2),
        'at most 1.2x',
        ratio <= 1.2,
        'x',
      );
      const [s16, s200] = [status(small), status(big)];
      const statusRatio = (s200.cpu - s16.cpu) / (SCALE_BALLS - SPREAD_BALLS) / (s16.cpu / SPREAD_BALLS);
      ctx.note(
        `runner-bullmq scaling, ${label}: the engine's CPU ${small.cpu.toFixed(0)} ms for ${SPREAD_BALLS} balls (${perSmall.toFixed(1)} ms per ball), ${big.cpu.toFixed(0)} ms for ${SCALE_BALLS} (${(big.cpu / SCALE_BALLS).toFixed(1)} ms per ball, ${perExtra.toFixed(1)} ms per extra ball); wall ${(small.wall / 1000).toFixed(2)} s and ${(big.wall / 1000).toFixed(2)} s (${(small.wall / SPREAD_BALLS).toFixed(0)} and ${(big.wall / SCALE_BALLS).toFixed(0)} ms per ball); leap slice status --json: ${s16.wall.toFixed(0)} ms (CPU ${s16.cpu.toFixed(0)}) and ${s200.wall.toFixed(0)} ms (CPU ${s200.cpu.toFixed(0)}), per extra ball / per ball ${statusRatio.toFixed(2)}x`,
      );
    }
  } finally {
    await redis.stop();
  }
}

// Bench of the bullmq runner (@leap/runner-bullmq): LEAP balls spread over `leap worker`s through a BullMQ
// queue on a real redis-server (127.0.0.1, a free port, no persistence), each worker in a folder of its own
// standing in for a machine, the shared remote a bare repository.
//  - Spread: 8 independent balls whose builders each wait 2 s (reviewers answer at once); two workers with
//    --jobs 2 each against one worker with --jobs 2, measured in the same run: the two-worker wall time at
//    most 0.6 times the one-worker time (the ideal is 0.5: two waves of 2 s against four).
//  - The queue's own cost per ball: the same slice with builders and reviewers that answer at once, one
//    worker with --jobs 1 and the engine with --jobs 1, against the local runner's on the same slice: wall
//    time less every leaf's own time (the exit events' duration_ms) and every proof's, per ball.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
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
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
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
  const entry = (cli, name) => [
    process.execPath,
    '--input-type=module',
    '-e',
    `const m = await import(${JSON.stringify(cli)}); const { processSubcommandIo } = await import(${JSON.stringify(coreJs)}); process.exitCode = await m.${name}(process.argv.slice(1), processSubcommandIo());`,
    '--',
  ];
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('VERI_') || key.startsWith('LEAP_BULLMQ_')) delete env[key];
  // Engine and workers sign jobs and results with one secret (CONTRACT section 11).
  env.LEAP_QUEUE_SECRET = 'bench-queue-secret-0123456789';
  const redis = await startRedis(join(ctx.tmp, 'redis'));
  let n = 0;
  // Each worker builds with its own agents file (jobs carry none): here the run's.
  const workersUp = async (remote, count, jobs, agents) => {
    const workers = [];
    for (let i = 0; i < count; i++) {
      const dir = join(ctx.tmp, `machine-${n}-${i}`);
      mkdirSync(dir, { recursive: true });
      const [cmd, ...args] = entry(workerCli, 'workerCommand');
      const child = spawn(cmd, [...args, '--redis', redis.url, '--repo', remote, '--jobs', String(jobs), '--dir', join(dir, 'w'), '--name', `m${i}`, '--agents', agents], {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      await new Promise((resolve, reject) => {
        child.stderr.on('data', (b) => {
          err += b;
          if (err.includes('waiting for rounds')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`leap worker exited ${code}: ${err}`)));
      });
      workers.push(child);
    }
    return async () => {
      for (const w of workers)
        await new Promise((r) => {
          w.once('exit', r);
          w.kill('SIGTERM');
        });
    };
  };
  // One slice run, through `leap slice run` as a process; `runner` null: the local runner.
  const runSlice = async (buildSleep, runner, jobs) => {
    const dir = join(ctx.tmp, `run-${n++}`);
    mkdirSync(dir, { recursive: true });
    const { remote, repo } = makeRemote(dir);
    const file = writeSliceFile(dir, `s${n}`);
    const agents = writeAgentsFile(dir, buildSleep);
    const down = runner === null ? async () => {} : await workersUp(remote, runner.workers, runner.jobs, agents);
    const [cmd, ...args] = entry(sliceCli, 'sliceCommand');
    const extra = runner === null ? [] : ['--runner', 'bullmq', '--redis', redis.url];
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, [...args, 'run', file, '--jobs', String(jobs), '--agents', agents, '--builder', 'builder', '--reviewers', 'r1,r2', '--json', ...extra], {
      cwd: repo,
      env,
      encoding: 'utf8',
    });
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    await down();
    if (r.status !== 0) throw new Error(`leap slice run exited ${r.status}: ${r.stderr}`);
    return { repo, wall, slice: `s${n}` };
  };
  try {
    // --- spread over machines, the two set-ups alternated so the VM's drift falls on both
    const one = [];
    const two = [];
    for (let i = 0; i < 3; i++) {
      one.push((await runSlice(2, { workers: 1, jobs: 2 }, BALLS)).wall / 1000);
      two.push((await runSlice(2, { workers: 2, jobs: 2 }, BALLS)).wall / 1000);
    }
    const ratio = ctx.median(two) / ctx.median(one);
    ctx.check('leap slice run --runner bullmq, 8 balls (builders 2 s): two workers --jobs 2 / one worker --jobs 2, wall time', ratio.toFixed(2), 'at most 0.6x', ratio <= 0.6, 'x');
    ctx.note(
      `runner-bullmq spread: one worker --jobs 2 ${ctx.median(one).toFixed(2)} s (runs ${one.map((t) => t.toFixed(2)).join(', ')}), two workers --jobs 2 ${ctx.median(two).toFixed(2)} s (runs ${two.map((t) => t.toFixed(2)).join(', ')}); the ideal is 8 s against 4 s of building`,
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
    ctx.check("leap slice run --runner bullmq: the own cost per ball (all but the builder, the proof and the jury) less the local runner's", (q - l).toFixed(1), 'at most 250 ms', q - l <= 250, ' ms');
    ctx.note(
      `runner-bullmq own cost: ${q.toFixed(1)} ms per ball through the queue (runs ${queued.map((x) => x.toFixed(1)).join(', ')}) vs ${l.toFixed(1)} ms with the local runner (runs ${local.map((x) => x.toFixed(1)).join(', ')}); the queue's share: the push of the round's commit, the worker's fetch, worktree and push, the engine's fetch back, the job's trip through Redis (its completion heard through the queue's events)`,
    );
  } finally {
    await redis.stop();
  }
}

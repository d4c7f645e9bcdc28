// Bench of `leap slice run` (@leap/slice): the parallel fan-out LEAP exists for, and the engine's own cost
// per ball against a bare `git worktree add` + `git worktree remove` measured in the same run.
//  - Fan-out: 8 independent balls whose builders each wait 2 s (an agent waiting on its model) and whose
//    two reviewers each wait 1 s, with --jobs 4 and with --jobs 1. The ideal with --jobs 4 is two waves of
//    one build round and one jury each, plus the aggregate jury: 2 x (2 + 1) + 1 = 7 s.
//  - Own cost: the same slice with builders and reviewers that answer at once, --jobs 1; the engine's cost
//    is the wall time less every leaf's own time (the exit events' duration_ms) and every proof run's (the
//    round records), per ball, the `leap` start-up included.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BALLS = 8;
const ANSWER = JSON.stringify({ verdict: 'pass', lens: 'defect', findings: [], reasoning: 'read the file, it holds the ball id' });

function makeRepo(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@test.invalid');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  for (let i = 0; i < 50; i++) writeFileSync(join(dir, 'src', `file-${i}.js`), `export const n${i} = ${i};\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return git;
}

// A slice of independent balls, each creating src/bN.txt; its proof (no shell) says the file is not empty.
function writeSliceFile(dir, id) {
  const balls = Array.from({ length: BALLS }, (_, i) => ({
    id: `b${i}`, goal: `src/b${i}.txt holds its id`, spec: 'Write the ball id into the file.',
    scope: [{ path: `src/b${i}.txt`, sha256: null }], proof: { argv: ['test', '-s', `src/b${i}.txt`] }, rollback: 'delete the file', deps: [],
  }));
  const file = join(dir, `${id}.json`);
  writeFileSync(file, JSON.stringify({ id, base: 'HEAD', spine: 'integrator', balls }));
  return file;
}

function writeAgentsFile(dir, buildSleep, reviewSleep) {
  const sleep = (s) => (s > 0 ? `sleep ${s}; ` : '');
  const builder = ['bash', '-c', `cat >/dev/null; ${sleep(buildSleep)}printf '%s\\n' "$LEAP_BALL" > "src/$LEAP_BALL.txt"; echo built`];
  const reviewer = ['bash', '-c', `cat >/dev/null; ${sleep(reviewSleep)}echo '${ANSWER}'`];
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: {
    builder: { plugin: 'command', family: 'fb', command: builder },
    r1: { plugin: 'command', family: 'f1', command: reviewer },
    r2: { plugin: 'command', family: 'f2', command: reviewer },
  } }));
  return file;
}

export default async function sliceRun(ctx) {
  const leapBin = ctx.bin('cli', 'leap');
  const sliceCli = join(ctx.root, 'packages', 'slice', 'dist', 'cli.js');
  if (!ctx.has(leapBin) && !ctx.has(sliceCli)) {
    ctx.note('slice-run: neither packages/cli/dist/bin/leap.cjs nor packages/slice/dist/cli.js is built; skipped');
    return;
  }
  // `leap slice run ...` through the umbrella bin when it is built (and not older than the package's own
  // build, which it bundles), else through the package's own entry.
  const viaBin = ctx.has(leapBin) && (!ctx.has(sliceCli) || statSync(leapBin).mtimeMs >= statSync(sliceCli).mtimeMs);
  const leap = (args) => (viaBin
    ? [process.execPath, leapBin, 'slice', ...args]
    : [process.execPath, '--input-type=module', '-e', `const { sliceCommand } = await import(${JSON.stringify(sliceCli)}); const { processSubcommandIo } = await import(${JSON.stringify(join(ctx.root, 'packages', 'core', 'dist', 'index.js'))}); process.exitCode = await sliceCommand(process.argv.slice(1), processSubcommandIo());`, ...args]);
  let n = 0;
  const runSlice = (buildSleep, reviewSleep, jobs) => {
    const dir = join(ctx.tmp, `run-${n++}`);
    makeRepo(dir);
    const file = writeSliceFile(ctx.tmp, `s${n}`);
    const agents = writeAgentsFile(ctx.tmp, buildSleep, reviewSleep);
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('VERI_')) delete env[key];
    const [cmd, ...args] = leap(['run', file, '--jobs', String(jobs), '--agents', agents, '--builder', 'builder', '--reviewers', 'r1,r2', '--json']);
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: dir, env, encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`leap slice run exited ${r.status}: ${r.stderr}`);
    return { dir, wall, slice: `s${n}` };
  };

  // --- fan-out
  const IDEAL = 2 * (2 + 1) + 1;
  const fourRuns = [runSlice(2, 1, 4), runSlice(2, 1, 4), runSlice(2, 1, 4)].map((r) => r.wall / 1000);
  const four = ctx.median(fourRuns);
  const one = runSlice(2, 1, 1).wall / 1000;
  const efficiency = one / (4 * four);
  ctx.check('leap slice run, 8 balls (builders 2 s, reviewers 1 s), --jobs 4: wall time / ideal (7 s)', (four / IDEAL).toFixed(2), 'at most 1.25x', four / IDEAL <= 1.25, 'x');
  ctx.note(`slice-run fan-out: --jobs 4 ${four.toFixed(2)} s (runs ${fourRuns.map((t) => t.toFixed(2)).join(', ')}), --jobs 1 ${one.toFixed(2)} s: ${(one / four).toFixed(2)}x longer; parallel efficiency ${(efficiency * 100).toFixed(0)}% (the --jobs 1 time over 4 x the --jobs 4 time)`);
  ctx.check('leap slice run, the same slice with --jobs 1: times the --jobs 4 wall time', (one / four).toFixed(2), 'about 4x (3 to 4.5)', one / four >= 3 && one / four <= 4.5, 'x');

  // --- the engine's own cost per ball
  const own = [];
  for (let i = 0; i < 3; i++) {
    const { dir, wall, slice } = runSlice(0, 0, 1);
    const events = readFileSync(join(dir, '.tdd', 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"exit"')).map((l) => JSON.parse(l));
    const leaves = events.filter((e) => e.event === 'exit').reduce((s, e) => s + e.duration_ms, 0);
    let proofs = 0;
    for (const ball of readdirSync(join(dir, '.leap', slice)).filter((b) => /^b\d+$/.test(b))) {
      for (const f of readdirSync(join(dir, '.leap', slice, ball)).filter((x) => /^round-\d\.json$/.test(x))) {
        const r = JSON.parse(readFileSync(join(dir, '.leap', slice, ball, f), 'utf8'));
        proofs += (r.champion?.ms ?? 0) + (r.reproof?.ms ?? 0);
      }
    }
    own.push((wall - leaves - proofs) / BALLS);
  }
  // A bare worktree add + remove in a repository of the same size, from a shell loop (no Node in the figure).
  const bareDir = join(ctx.tmp, 'bare');
  makeRepo(bareDir);
  const [, bare] = ctx.timeRuns(ctx.RUNS, ['bash', '-c', 'git worktree add -q --detach ../wt HEAD && git worktree remove --force ../wt'], { cwd: bareDir });
  const perBall = ctx.median(own);
  const bareMs = ctx.median(bare);
  ctx.check('leap slice run: the engine\'s own cost per ball / a bare git worktree add + remove', (perBall / bareMs).toFixed(2), 'at most 1.5x', perBall / bareMs <= 1.5, 'x');
  ctx.note(`slice-run own cost: ${perBall.toFixed(1)} ms per ball (runs ${own.map((x) => x.toFixed(1)).join(', ')}; wall less leaves and proofs, over ${BALLS} balls, leap's start-up and the aggregate jury's worktree included) vs git worktree add + remove ${bareMs.toFixed(1)} ms`);
  if (!viaBin) ctx.note('slice-run: ran through packages/slice/dist/cli.js (the umbrella bin is not built, or older than the package)');
}

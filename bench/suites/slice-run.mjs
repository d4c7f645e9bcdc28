// Bench of `leap slice run` (@leap/slice): the parallel fan-out LEAP exists for, and the engine's own cost
// per ball against a bare `git worktree add` + `git worktree remove` measured in the same run.
//  - Fan-out: 8 independent balls whose builders each wait 2 s (an agent waiting on its model) and whose
//    two reviewers each wait 1 s, with --jobs 4 and with --jobs 1. The ideal with --jobs 4 is two waves of
//    one build round and one jury each, plus the aggregate jury: 2 x (2 + 1) + 1 = 7 s.
//  - Own cost: the same slice with builders and reviewers that answer at once, --jobs 1; the engine's cost
//    is the wall time less every leaf's own time (the exit events' duration_ms) and every proof run's (the
//    round records), per ball, the `leap` start-up included. Beside the budget (1.5 times a bare
//    worktree add + remove), the floor: bash doing exactly the git work of that run (FLOOR_SCRIPT), and
//    nothing else; when the budget is below the floor, the notes say so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BALLS, FLOOR_SCRIPT, makeRepo, ownCostPerBall, writeAgentsFile, writeSliceFile } from './_slice-balls.js';

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
  const leap = (args) =>
    viaBin
      ? [process.execPath, leapBin, 'slice', ...args]
      : [
          process.execPath,
          '--input-type=module',
          '-e',
          `const { sliceCommand } = await import(${JSON.stringify(sliceCli)}); const { processSubcommandIo } = await import(${JSON.stringify(join(ctx.root, 'packages', 'core', 'dist', 'index.js'))}); process.exitCode = await sliceCommand(process.argv.slice(1), processSubcommandIo());`,
          ...args,
        ];
  let n = 0;
  const runSlice = (buildSleep, reviewSleep, jobs) => {
    const dir = join(ctx.tmp, `run-${n++}`);
    makeRepo(dir);
    const file = writeSliceFile(ctx.tmp, `s${n}`);
    const agents = writeAgentsFile(ctx.tmp, buildSleep, reviewSleep);
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('VERI_')) delete env[key];
    const [cmd, ...args] = leap([
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
    ]);
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: dir, env, encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`leap slice run exited ${r.status}: ${r.stderr}`);
    return { repo: dir, wall, slice: `s${n}` };
  };

  // --- fan-out
  const IDEAL = 2 * (2 + 1) + 1;
  const fourRuns = [runSlice(2, 1, 4), runSlice(2, 1, 4), runSlice(2, 1, 4)].map((r) => r.wall / 1000);
  const four = ctx.median(fourRuns);
  const one = runSlice(2, 1, 1).wall / 1000;
  const efficiency = one / (4 * four);
  ctx.check(
    'leap slice run, 8 balls (builders 2 s, reviewers 1 s), --jobs 4: wall time / ideal (7 s)',
    (four / IDEAL).toFixed(2),
    'at most 1.25x',
    four / IDEAL <= 1.25,
    'x',
  );
  ctx.note(
    `slice-run fan-out: --jobs 4 ${four.toFixed(2)} s (runs ${fourRuns.map((t) => t.toFixed(2)).join(', ')}), --jobs 1 ${one.toFixed(2)} s: ${(one / four).toFixed(2)}x longer; parallel efficiency ${(efficiency * 100).toFixed(0)}% (the --jobs 1 time over 4 x the --jobs 4 time)`,
  );
  ctx.check(
    'leap slice run, the same slice with --jobs 1: times the --jobs 4 wall time',
    (one / four).toFixed(2),
    'about 4x (3 to 4.5)',
    one / four >= 3 && one / four <= 4.5,
    'x',
  );

  // --- the engine's own cost per ball, against a bare worktree add + remove (the budget) and against
  // the floor (the same git work, from bash), each measured right after an engine run in the same kind of repository
  const floorFile = join(ctx.tmp, 'floor.sh');
  writeFileSync(floorFile, FLOOR_SCRIPT);
  const own = [];
  const floor = [];
  const bare = [];
  for (let i = 0; i < 3; i++) {
    own.push(ownCostPerBall(runSlice(0, 0, 1)));
    const floorDir = join(ctx.tmp, `floor-${i}`);
    makeRepo(floorDir);
    mkdirSync(join(floorDir, '.leap'));
    writeFileSync(join(floorDir, '.leap', '.gitignore'), '*\n');
    floor.push(ctx.timeRuns(1, ['bash', floorFile, String(BALLS)], { cwd: floorDir })[1][0] / BALLS);
    // A bare worktree add + remove in a repository of the same size, from a shell loop (no Node in the figure).
    const bareDir = join(ctx.tmp, `bare-${i}`);
    makeRepo(bareDir);
    bare.push(
      ctx.median(
        ctx.timeRuns(
          ctx.RUNS,
          ['bash', '-c', 'git worktree add -q --detach ../wt HEAD && git worktree remove --force ../wt'],
          { cwd: bareDir },
        )[1],
      ),
    );
  }
  const perBall = ctx.median(own);
  const bareMs = ctx.median(bare);
  const floorMs = ctx.median(floor);
  const toBare = ctx.median(own.map((o, i) => o / bare[i]));
  const toFloor = ctx.median(own.map((o, i) => o / floor[i]));
  const floorToBare = ctx.median(floor.map((f, i) => f / bare[i]));
  ctx.check(
    "leap slice run: the engine's own cost per ball / a bare git worktree add + remove",
    toBare.toFixed(2),
    'at most 1.5x',
    toBare <= 1.5,
    'x',
    {
      value: `${floorToBare.toFixed(2)}x`,
      below: floorToBare > 1.5,
    },
  );
  ctx.note(
    `slice-run own cost: ${perBall.toFixed(1)} ms per ball (runs ${own.map((x) => x.toFixed(1)).join(', ')}; wall less leaves and proofs, over ${BALLS} balls, leap's start-up and the aggregate jury's worktree included) vs git worktree add + remove ${bareMs.toFixed(1)} ms (runs ${bare.map((x) => x.toFixed(1)).join(', ')}): ${toBare.toFixed(2)}x (median of the paired ratios)`,
  );
  ctx.note(
    `slice-run floor: the git work a ball needs, from bash (bench/suites/_slice-balls.js, per ball: worktree add -B, the file map's check-ignore, the champion's status, add + diff of the changed paths, the jury's two status, commit + status, worktree remove, merge-tree + commit-tree + diff + update-ref; the run's own), ${floorMs.toFixed(1)} ms per ball (runs ${floor.map((x) => x.toFixed(1)).join(', ')}) = ${floorToBare.toFixed(2)}x a bare worktree add + remove, so the 1.5x budget is ${floorToBare > 1.5 ? 'below' : 'above'} the floor; the engine's own cost is ${toFloor.toFixed(2)}x that floor (Node's start-up, a fork of its heap per process, the leaves' and the jury's supervision, records and events)`,
  );
  if (!viaBin)
    ctx.note(
      'slice-run: ran through packages/slice/dist/cli.js (the umbrella bin is not built, or older than the package)',
    );
}

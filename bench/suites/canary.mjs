// The canary's cost (issue 40): in the 3-step scripted run each green and refactor runs the suite once more, in a
// copy with a canary in the step's test file, beside its counted run; each green runs it a second time (the flaky
// check) beside the verifier's leaf. Figures: those runs' own time, apart from the counted ones, and a step's wall
// time against the same run by the build before them (BENCH_BASE_LEAP: that build's leap.cjs), run by run,
// alternating which goes first: at most 1.3x. The test command shows its output, as a project's does: the canary
// and the second run are made where they are cheapest, the step's test files alone, when the output names them.
import { join } from 'node:path';
import { TITLES, runScripted } from './_scripted-run.js';

// A step's wall time: from the first step's start mark to the run's last event, a third each.
function stepMs(run) {
  const start = run.events.find((e) => e.event === 'mark' && e.name === 'step-start');
  return (Date.parse(run.events.at(-1).ts) - Date.parse(start.ts)) / TITLES.length;
}

export default async function canary(ctx) {
  const leap = ctx.bin('cli', 'leap');
  if (!ctx.has(leap)) {
    ctx.note('canary: packages/cli/dist/bin/leap.cjs is not built; skipped');
    return;
  }
  const base = process.env.BENCH_BASE_LEAP;
  const runs = Number(process.env.BENCH_CANARY_RUNS ?? 5);
  const now = [];
  const before = [];
  for (let i = 0; i < runs; i++) {
    const pair = [
      ['now', leap],
      ['before', base],
    ].filter(([, bin]) => bin !== undefined);
    if (i % 2 === 1) pair.reverse();
    for (const [which, bin] of pair) {
      const run = runScripted(bin, join(ctx.tmp, `${which}-${i}`), 'node --test test/');
      if (run.status !== 0) {
        ctx.note(`canary: the ${which} build's run exited ${run.status}: ${run.output.slice(-600)}`);
        return;
      }
      (which === 'now' ? now : before).push(run);
    }
  }
  const suites = now.flatMap((r) => r.events.filter((e) => e.event === 'suite'));
  const of = (purpose) => suites.filter((e) => e.purpose === purpose);
  const perStep = (list) => (list.length / runs / TITLES.length).toFixed(1);
  const msPerStep = (list) => list.reduce((sum, e) => sum + e.duration_ms, 0) / runs / TITLES.length;
  const counted = of(undefined);
  ctx.note(
    `canary: per step of the 3-step scripted run (${runs} runs), ${perStep(of('canary'))} canary runs of ${msPerStep(of('canary')).toFixed(0)} ms and ${perStep(of('rerun'))} second runs of ${msPerStep(of('rerun')).toFixed(0)} ms, beside ${perStep(counted.filter((e) => e.phase !== 'baseline'))} counted runs of ${msPerStep(counted.filter((e) => e.phase !== 'baseline')).toFixed(0)} ms (each sandboxed)`,
  );
  const stepNow = ctx.median(now.map(stepMs));
  if (base === undefined) {
    ctx.note(
      `canary: a step took ${stepNow.toFixed(0)} ms (median); set BENCH_BASE_LEAP to the build before the canary to compare`,
    );
    return;
  }
  const ratios = now.map((run, i) => stepMs(run) / stepMs(before[i]));
  const ratio = ctx.median(ratios);
  ctx.note(
    `canary: a step took ${stepNow.toFixed(0)} ms (median) against ${ctx.median(before.map(stepMs)).toFixed(0)} ms with the build before; paired ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
  );
  ctx.check(
    "a step's wall time with the canary and the second run, against the build before them (median paired ratio)",
    ratio.toFixed(2),
    'at most 1.3x',
    ratio <= 1.3,
  );
}

// The ledger (leap-ledger): `current` on a piped 10,000-step ledger (at most 1.3x `node -e 0`), the import of
// @leap/core/ledger (at most 15 ms over bare node, no heavy module), and a tick in a 10,000-file repository against its
// floor, `node -e 0` plus a plain `git commit` of the same change (at most 1.7x). BENCH_LEDGER_BASELINE=DIR, a tree
// whose packages/ledger and packages/core were built before a change, times its bins paired with these, run by run.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const entry = (root) => {
  const core = join(root, 'packages', 'core');
  return join(core, JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')).exports['./ledger'].default);
};
const binIn = (root) => join(root, 'packages', 'ledger', 'dist', 'bin', 'leap-ledger.cjs');

export default async function ledger(ctx) {
  const bin = ctx.bin('ledger', 'leap-ledger');
  if (!ctx.has(bin)) return ctx.note('ledger: packages/ledger/dist/bin/leap-ledger.cjs is not built; skipped');
  const baseline = process.env.BENCH_LEDGER_BASELINE ?? null;
  if (baseline !== null && !existsSync(binIn(baseline)))
    throw new Error(`BENCH_LEDGER_BASELINE: no ${binIn(baseline)}`);
  const lines = ['# Ten thousand steps', '', '## Steps', ''];
  for (let i = 1; i <= 10_000; i++) lines.push(`- [${i <= 9_000 ? 'x' : ' '}] Step number ${i}: it's "quoted" $(x) 🦀`);
  const ledger10k = join(ctx.tmp, 'issue-10k.md');
  writeFileSync(ledger10k, `${lines.join('\n')}\n`);

  ctx.coldStart('leap-ledger current (10,000 steps, piped to stdin)', [bin, 'current'], {
    input: ledger10k,
    budget: 1.3,
    expect: 0,
  });
  // Each build in both places of time-runs.sh's pairs (the second of a pair runs a little slower here), half the runs each.
  const paired = (label, before, after) => {
    const half = Math.ceil(ctx.RUNS / 2);
    const [b1, a1] = ctx.timeRuns(half, after, { base: before });
    const [a2, b2] = ctx.timeRuns(half, before, { base: after });
    const [a, b] = [
      [...a1, ...a2],
      [...b1, ...b2],
    ];
    const ratios = a.map((t, i) => t / b[i]);
    const spread = ctx
      .quartiles(ratios)
      .map((r) => r.toFixed(2))
      .join('-');
    ctx.note(
      `${label}: this build ${ctx.median(a).toFixed(1)} ms against the baseline's ${ctx.median(b).toFixed(1)} ms, median paired ratio ${ctx.median(ratios).toFixed(2)}x (middle half ${spread})`,
    );
  };
  if (baseline !== null) {
    // --ledger FILE, not stdin: time-runs.sh pipes the input to the second command of a pair only.
    const current = (b) => [process.execPath, b, 'current', '--ledger', ledger10k];
    paired(
      'leap-ledger current --ledger (10,000 steps) against the baseline build',
      current(binIn(baseline)),
      current(bin),
    );
  }

  // What a consumer loads: the package's published `@leap/core/ledger` entry (the bundle).
  const importing = (file) => [process.execPath, '--input-type=module', '-e', `await import(${JSON.stringify(file)})`];
  const [bare, imported] = ctx.timeRuns(ctx.RUNS, importing(entry(ctx.root)), {
    base: [process.execPath, '--input-type=module', '-e', '0'],
  });
  const cost = ctx.median(imported.map((t, i) => t - bare[i]));
  ctx.check(
    'import @leap/core/ledger over bare node (both ESM, median of paired differences)',
    cost.toFixed(1),
    '<= 15 ms',
    cost <= 15,
    ' ms',
  );
  if (baseline !== null)
    paired(
      'import @leap/core/ledger against the baseline build',
      importing(entry(baseline)),
      importing(entry(ctx.root)),
    );
  const heavy = ['zod', 'ajv', 'chokidar', 'simple-git', 'zx'];
  const probe = `import { createRequire } from 'node:module'; await import(${JSON.stringify(entry(ctx.root))});
    process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache ?? {})));`;
  const loaded = JSON.parse(
    spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }).stdout || '[]',
  );
  const heavyLoaded = loaded.filter((p) => heavy.some((h) => p.includes(`/node_modules/${h}/`)));
  ctx.check('heavy modules loaded with the ledger parser', heavyLoaded.length, '0', heavyLoaded.length === 0);

  const { benchTick } = await import(join(ctx.root, 'bench', 'tick.mjs'));
  const t = benchTick(ctx.tmp, bin, ctx.RUNS, baseline === null ? null : binIn(baseline));
  const floor =
    'tick vs its floor, `node -e 0` plus a plain git commit of the same change, run by run (10,000-file repo, median paired ratio)';
  ctx.check(floor, t.floorRatio.toFixed(2), '<= 1.7x', t.floorRatio <= 1.7, 'x');
  const spread = t.floorSpread.map((r) => r.toFixed(2)).join('-');
  ctx.note(
    `tick median ${t.tick.toFixed(1)} ms; git commit median ${t.commit.toFixed(1)} ms; node -e 0 median ${t.node.toFixed(1)} ms; tick is ${t.ratio.toFixed(2)}x a plain commit; against its floor (node -e 0 + git commit, paired in each run) ${t.floorRatio.toFixed(2)}x, middle half of the ratios ${spread}`,
  );
  if (t.before !== null) {
    const middle = t.before.spread.map((r) => r.toFixed(2)).join('-');
    ctx.note(
      `tick against the baseline build's tick, run by run: this build ${t.tick.toFixed(1)} ms, the baseline ${t.before.tick.toFixed(1)} ms, median paired ratio ${t.before.ratio.toFixed(2)}x (middle half ${middle})`,
    );
  }
  if (process.env.NODE_EXTRA_CA_CERTS) {
    // Every Node start reads this bundle before any script runs; the ledger never uses TLS.
    const { NODE_EXTRA_CA_CERTS: _unused, ...bare } = process.env;
    const without = ctx.median(ctx.timeRuns(ctx.RUNS, [process.execPath, '-e', '0'], { env: bare })[1]);
    ctx.note(
      `NODE_EXTRA_CA_CERTS is set on this machine: node -e 0 takes ${without.toFixed(1)} ms without it, against ${t.node.toFixed(1)} ms with it`,
    );
  }
}

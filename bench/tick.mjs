// Bench: `leap-ledger tick` against a plain `git commit` of the same change, in a repository of 10,000 files,
// interleaved so both see the same machine load, timed from bash (tick-runs.sh). The budget is set against the floor
// of a Node tick: `node -e 0` plus the plain commit, run by run. Given a baseline build's bin, its ticks run in the
// same loop, and the figure is paired too.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, quartiles } from './stats.mjs';

export function benchTick(tmp, leapLedger, runs, baseline = null) {
  const repo = join(tmp, 'tick-repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const git = (...a) => execFileSync('git', a, { cwd: repo, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@leap.invalid');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(repo, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(join(repo, 'src', `d${d}`, `f${f}.js`), `export const v = ${d * 100 + f};\n`);
  }
  const steps = Array.from({ length: runs }, (_, i) => [
    `- [ ] Step ${i}: it's "quoted" $(x)`,
    `- [ ] Step b${i}: it's "quoted" $(x)`,
  ]);
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(join(repo, '.tdd', 'issue-1.md'), `# Bench\n\n## Steps\n\n${steps.flat().join('\n')}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const env = { ...process.env, VERI_STATE_DIR: join(repo, '.tdd') };
  // The loop runs in bash (tick-runs.sh): spawnSync from this process would add the fork of its heap to each figure.
  const script = join(dirname(fileURLToPath(import.meta.url)), 'tick-runs.sh');
  const args = [script, String(runs), process.execPath, leapLedger, ...(baseline === null ? [] : [baseline])];
  const r = spawnSync('bash', args, { cwd: repo, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tick-runs.sh: exit ${r.status}: ${r.stderr}`);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' ').map((us) => Number(us) / 1000));
  const [commit, node, tick, before] = [0, 1, 2, 3].map((k) => rows.map((row) => row[k]));
  // The budget's figure: each tick against the floor of any Node tick measured beside it in the same run,
  // its `node -e 0` plus its plain `git commit` of the same change (a Node command that commits pays both).
  const floorRatios = rows.map(([c, n, t]) => t / (n + c));
  const beforeRatios = baseline === null ? null : rows.map(([, , t, b]) => t / b);
  return {
    tick: median(tick),
    commit: median(commit),
    node: median(node),
    ratio: median(tick) / median(commit),
    floorRatio: median(floorRatios),
    floorSpread: quartiles(floorRatios),
    before:
      beforeRatios === null
        ? null
        : { tick: median(before), ratio: median(beforeRatios), spread: quartiles(beforeRatios) },
  };
}

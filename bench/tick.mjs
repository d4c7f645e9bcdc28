// Bench: `leap-ledger tick` against a plain `git commit` of the same change, in a repository of
// 10,000 files, interleaved so both see the same machine load.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function benchTick(tmp, leapLedger, runs) {
  const repo = join(tmp, 'tick-repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const git = (...a) => execFileSync('git', a, { cwd: repo, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@leap.invalid');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(repo, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(join(repo, 'src', `d${d}`, `f${f}.js`), `export const v = ${d * 100 + f};\n`);
  }
  const steps = Array.from({ length: runs }, (_, i) => `- [ ] Step ${i}: it's "quoted" $(x)`);
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(join(repo, '.tdd', 'issue-1.md'), `# Bench\n\n## Steps\n\n${steps.join('\n')}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const env = { ...process.env, VERI_STATE_DIR: join(repo, '.tdd') };
  const tick = [];
  const commit = [];
  const node = [];
  for (let i = 0; i < runs; i++) {
    // The same change each time: one file of green work, staged.
    writeFileSync(join(repo, 'src', 'd1', 'f1.js'), `export const v = ${i};\n`);
    git('add', 'src/d1/f1.js');
    let t0 = process.hrtime.bigint();
    const plain = spawnSync('git', ['commit', '-q', '-m', `plain ${i}`], { cwd: repo, stdio: 'ignore' });
    commit.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (plain.status !== 0) throw new Error('git commit failed');
    t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    node.push(Number(process.hrtime.bigint() - t0) / 1e6);
    writeFileSync(join(repo, 'src', 'd1', 'f1.js'), `export const v = -${i};\n`);
    git('add', 'src/d1/f1.js');
    t0 = process.hrtime.bigint();
    const ticked = spawnSync(process.execPath, [leapLedger, 'tick', '--issue', '1', '--step', `Step ${i}: it's "quoted" $(x)`, '-m', `green ${i}`], { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    tick.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (ticked.status !== 0) throw new Error(`tick failed: ${ticked.stderr}`);
  }
  return { tick: median(tick), commit: median(commit), node: median(node), ratio: median(tick) / median(commit) };
}

// The weight of issue 41, held by tools/weight.mjs: the tree is within its budget, and a figure that creeps over
// its ceiling (a budget one under today's figure) fails, named; one at or under its target passes whatever its ceiling.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir, repoRoot, suite } from '@leap/test-utils';

const weight = suite('the weight of the tree');
weight.after.each(cleanupTempDirs);

const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, 'tools/weight.mjs'), ...args], { cwd: repoRoot, encoding: 'utf8' });
type Budget = Record<string, { target: number; ceiling: number }>;

weight('the tree is within every ceiling of tools/weight-budget.json', () => {
  const r = run();
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /^product lines +\d+ +target +16000 /m);
});

weight('a figure one over its ceiling fails and is named; at its target it passes', () => {
  const { figures } = JSON.parse(run('--json').stdout) as { figures: Record<string, number> };
  // Every other figure exactly at its ceiling: only the one under test can fail.
  const budget: Budget = Object.fromEntries(
    Object.entries(figures).map(([name, value]) => [name, { target: 0, ceiling: value }]),
  );
  const file = join(makeTempDir('leap-weight-'), 'budget.json');
  const lines = figures['product lines'] as number;
  writeFileSync(file, JSON.stringify({ ...budget, 'product lines': { target: 0, ceiling: lines - 1 } }));
  const over = run('--budget', file);
  assert.is(over.status, 1, over.stdout);
  assert.match(over.stdout, /^product lines +\d+ +target +0 +OVER ITS CEILING$/m);
  assert.match(over.stderr, /weight: 1 figure\(s\) over their ceiling; cut, do not raise/);
  writeFileSync(file, JSON.stringify({ ...budget, 'product lines': { target: lines, ceiling: 0 } }));
  const onTarget = run('--budget', file);
  assert.is(onTarget.status, 0, onTarget.stderr);
  assert.match(onTarget.stdout, /^product lines +\d+ +target +\d+ +on target$/m);
});

weight.run();

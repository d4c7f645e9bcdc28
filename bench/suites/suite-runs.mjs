// Test-suite runs per step, as the run's own event log records them (CONTRACT section 13): a real 3-step run
// of `leap tdd run` with scripted agents (the developer's moves write each step's test, code and refactor; the
// verifier passes), then its `suite` events counted by phase. Budget: at most 3 a step (red 1: it fails with
// the new test, and the tree without it is the previous step's, which passed already; green 1; refactor 1),
// plus exactly one baseline a run. That is also the floor: red must be seen to fail, green and refactor to pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TITLES, project } from './_scripted-run.js';

const HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";

export default async function suiteRuns(ctx) {
  const leap = ctx.bin('cli', 'leap');
  if (!ctx.has(leap, join(ctx.root, 'packages', 'conductor', 'dist', 'index.js'))) {
    ctx.note('suite runs: packages/cli/dist/bin/leap.cjs or @leap/conductor is not built; skipped');
    return;
  }
  const titles = TITLES;
  const repo = join(ctx.tmp, 'suite-runs');
  project(repo, titles);
  const agents = join(ctx.tmp, 'suite-runs-agents');
  mkdirSync(agents, { recursive: true });
  const developer = titles.flatMap((title, i) => {
    const n = i + 1;
    return [
      {
        edits: [
          {
            path: `test/step${n}.test.js`,
            content: `${HEAD}import { value } from '../src/step${n}.js';\ntest('step ${n}', () => assert.equal(value, ${n}));\n`,
          },
        ],
        answer: `red ${n}`,
      },
      { edits: [{ path: `src/step${n}.js`, content: `export const value = ${n};\n` }], answer: `green ${n}` },
      {
        edits: [{ path: `src/step${n}.js`, content: `// ${title}\nexport const value = ${n};\n` }],
        answer: `refactor ${n}`,
      },
    ];
  });
  const verifier = titles.flatMap(() =>
    ['red', 'green', 'refactor'].map((phase) => ({ answer: { verdict: 'PASS', reason: `${phase} holds` } })),
  );
  writeFileSync(join(agents, 'dev.json'), JSON.stringify({ family: 'replayed', moves: developer }));
  writeFileSync(join(agents, 'ver.json'), JSON.stringify({ family: 'checker', moves: verifier }));
  writeFileSync(
    join(agents, 'agents.json'),
    JSON.stringify({
      agents: { dev: { plugin: 'scripted', script: 'dev.json' }, ver: { plugin: 'scripted', script: 'ver.json' } },
    }),
  );
  writeFileSync(
    join(agents, 'plan.txt'),
    `Bench plan\n${titles.map((t, i) => `${t} (criterion ${i + 1})`).join('\n')}\n`,
  );
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VERI_|LEAP_)/.test(k))),
    VERI_TIMEOUT: '120',
  };
  const run = spawnSync(
    process.execPath,
    [
      leap,
      'tdd',
      'run',
      '--issue',
      '1',
      '--test-cmd',
      'node --test test/',
      '--plan',
      join(agents, 'plan.txt'),
      '--developer',
      'dev',
      '--verifier',
      'ver',
      '--agents',
      join(agents, 'agents.json'),
    ],
    { cwd: repo, env, encoding: 'utf8' },
  );
  if (run.status !== 0) {
    ctx.note(`suite runs: the 3-step scripted run exited ${run.status}: ${(run.stdout + run.stderr).slice(-800)}`);
    return;
  }
  const all = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'suite');
  // The canary runs and the second runs are suite events of their own purpose, outside the budget (CONTRACT section 9).
  const suites = all.filter((e) => e.purpose === undefined);
  const by = {};
  for (const e of all) {
    const key = e.purpose === undefined ? (e.phase ?? 'none') : `${e.phase} ${e.purpose}`;
    by[key] = (by[key] ?? 0) + 1;
  }
  const baselines = by.baseline ?? 0;
  const perStep = (suites.length - baselines) / titles.length;
  ctx.note(
    `suite runs: a 3-step scripted run appended ${all.length} suite events: ${Object.entries(by)
      .map(([phase, n]) => `${phase} ${n}`)
      .join(', ')}`,
  );
  ctx.check(
    'suite runs per step of a 3-step scripted run, counted from its `suite` events (besides the baseline)',
    `${perStep.toFixed(2)} (${suites.length} events, ${baselines} baseline)`,
    'at most 3 a step (red 1, green 1, refactor 1), plus exactly 1 baseline a run',
    perStep <= 3 && baselines === 1,
    '',
    { value: '3 a step and 1 baseline: red must fail once, green and refactor pass once', below: false },
  );
}

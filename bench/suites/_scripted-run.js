// What the suites that time a scripted `leap tdd run` share (conductor.mjs, canary.mjs): a project, a 3-step run
// with command agents (the developer's moves write each step's test, code and refactor; the verifier passes), and
// its records read back. Not a suite: bench/run.mjs takes only bench/suites/*.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const FIXTURES = join(
  dirname(new URL(import.meta.url).pathname),
  '..',
  '..',
  'packages',
  'conductor',
  'test',
  'fixtures',
);
const HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";

export const TITLES = ['Lowercase the words', "Drop what isn't a letter", 'Keep at most `20` characters'];

/** A node:test project with a smoke test and an issue of one criterion a step, in one commit on main. */
export function project(dir, steps = TITLES) {
  mkdirSync(dir, { recursive: true });
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Leap Bench');
  git('config', 'user.email', 'bench@leap.invalid');
  git('config', 'commit.gpgsign', 'false');
  const write = (path, text) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', '{ "name": "bench", "private": true, "type": "module" }\n');
  write('test/smoke.test.js', `${HEAD}test('smoke', () => assert.ok(true));\n`);
  write(
    '.tdd/issues/1.md',
    `# Bench issue\n\nThree criteria.\n\n## Acceptance criteria\n\n${steps.map((s) => `- [ ] ${s}`).join('\n')}\n`,
  );
  git('add', '-A');
  git('commit', '-q', '-m', 'bench project');
}

/** The command agents and the plan of the 3-step run, in `agentsDir`; returns the `leap tdd run` arguments after `--issue 1`. */
export function scriptedAgents(agentsDir, titles = TITLES) {
  const steps = {};
  titles.forEach((title, i) => {
    const n = i + 1;
    steps[title] = {
      red: {
        path: `test/step${n}.test.js`,
        content: `${HEAD}import { value } from '../src/step${n}.js';\ntest('step ${n}', () => assert.equal(value, ${n}));\n`,
      },
      green: { path: `src/step${n}.js`, content: `export const value = ${n};\n` },
      refactor: { path: `src/step${n}.js`, content: `// step ${n}\nexport const value = ${n};\n` },
    };
  });
  mkdirSync(agentsDir, { recursive: true });
  writeFileSync(join(agentsDir, 'moves.json'), JSON.stringify({ steps }));
  const agents = {
    dev: {
      plugin: 'command',
      family: 'replayed',
      command: [
        process.execPath,
        join(FIXTURES, 'dev-agent.mjs'),
        join(agentsDir, 'moves.json'),
        join(agentsDir, 'dev.log'),
      ],
    },
    ver: { plugin: 'command', family: 'checker', command: [process.execPath, join(FIXTURES, 'pass-verifier.mjs')] },
  };
  writeFileSync(join(agentsDir, 'agents.json'), JSON.stringify({ agents }));
  writeFileSync(
    join(agentsDir, 'plan.txt'),
    `Bench plan\n${titles.map((t, i) => `${t} (criterion ${i + 1})`).join('\n')}\n`,
  );
  return [
    '--plan',
    join(agentsDir, 'plan.txt'),
    '--developer',
    'dev',
    '--verifier',
    'ver',
    '--agents',
    join(agentsDir, 'agents.json'),
  ];
}

/** The run's environment: this process's, without VERI_* and LEAP_*. */
export function runEnv() {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VERI_|LEAP_)/.test(k))),
    VERI_TIMEOUT: '120',
  };
}

/** Run `leap tdd run` (the bin `leap`) in a fresh project under `dir`: its exit, output, wall time and events. */
export function runScripted(leap, dir, testCmd = 'node --test test/ >/dev/null 2>&1') {
  const repo = join(dir, 'repo');
  project(repo);
  const args = scriptedAgents(join(dir, 'agents'));
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [leap, 'tdd', 'run', '--issue', '1', '--test-cmd', testCmd, ...args], {
    cwd: repo,
    env: runEnv(),
    encoding: 'utf8',
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const events =
    run.status !== 0
      ? []
      : readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
  return { repo, status: run.status, output: run.stdout + run.stderr, wallMs, events };
}

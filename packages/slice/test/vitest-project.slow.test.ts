// `leap slice run` on a JavaScript project as its users have it: vitest 3 installed from npm (once, into a cache
// outside the repository), a vitest.config.ts, node_modules a real folder the repository ignores (`node_modules`,
// a pattern git 2.39's `git add` refused to see excluded). Two independent balls, each a module and its test,
// built by command agents, proven by `npx vitest run` on the ball's test, to `passed`, sandbox on and off.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { slicePaths } from '../src/index.js';
import {
  ball,
  extraWorktrees,
  leapSlice,
  readLeap,
  setupRepo,
  showFile,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const VITEST = 'vitest@3.2.7';
const CACHE = process.env.LEAP_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'leap-test');

/** vitest's node_modules, installed from npm the first time (a killed install leaves no half folder in its place). */
function vitestModules(): string {
  const dir = join(CACHE, 'slice-runners', VITEST);
  if (existsSync(join(dir, 'node_modules', '.bin', 'vitest'))) return join(dir, 'node_modules');
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), '{"private": true}\n');
    execFileSync(
      'npm',
      ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', VITEST],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(dir, 'node_modules');
}

const BASE = {
  '.gitignore': 'node_modules\n',
  'package.json': '{ "name": "calc", "private": true, "type": "module", "scripts": { "test": "vitest run" } }\n',
  'vitest.config.ts':
    "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'] } });\n",
  'src/add.ts': 'export const add = (a: number, b: number): number => a + b;\n',
  'test/add.test.ts':
    "import { expect, test } from 'vitest';\nimport { add } from '../src/add';\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
};
const test = (name: string, call: string, want: number) =>
  `import { expect, test } from 'vitest';\nimport { ${name} } from '../src/${name}';\ntest('${name}', () => expect(${call}).toBe(${want}));\n`;
const MOVES = {
  sub: {
    path: 'src/sub.ts',
    content: 'export const sub = (a: number, b: number): number => a - b;\n',
    test: test('sub', 'sub(3, 1)', 2),
  },
  mul: {
    path: 'src/mul.ts',
    content: 'export const mul = (a: number, b: number): number => a * b;\n',
    test: test('mul', 'mul(3, 2)', 6),
  },
};

const project = suite('leap slice run on a vitest project with an ignored node_modules');
project.after.each(cleanupTempDirs);

for (const sandbox of ['on', 'off'] as const) {
  project(`two independent balls to passed, each proven by npx vitest run, --sandbox ${sandbox}`, async () => {
    const modules = vitestModules();
    const { repo, dir } = setupRepo(BASE);
    cpSync(modules, join(repo, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    // Each ball's test is committed red first (its module missing): the proof fails at base as a test fails.
    for (const [id, move] of Object.entries(MOVES)) writeFileSync(join(repo, `test/${id}.test.ts`), move.test);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'red: sub and mul');
    const files = { ...BASE, 'test/sub.test.ts': MOVES.sub.test, 'test/mul.test.ts': MOVES.mul.test };
    const balls = Object.entries(MOVES).map(([id, move]) =>
      ball(id, [move.path], files, {
        red_first: true,
        proof: { argv: ['npx', 'vitest', 'run', `test/${id}.test.ts`] },
      }),
    );
    const file = writeSlice(dir, { id: `calc-${sandbox}`, balls });
    const agents = writeAgents(
      dir,
      Object.fromEntries(
        Object.entries(MOVES).map(([id, move]) => [
          id,
          { '*': { edits: [{ path: move.path, content: move.content }] } },
        ]),
      ),
    );
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--sandbox',
      sandbox,
    ]);
    assert.is(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stdout, new RegExp(`slice calc-${sandbox}: passed`));
    for (const [id, move] of Object.entries(MOVES)) {
      const round = readLeap<{ receipt: number; changed: string[]; champion: { code: number; note?: string } }>(
        repo,
        `calc-${sandbox}`,
        id,
        'round-1.json',
      );
      assert.equal(
        [round?.receipt, round?.changed, round?.champion.code, round?.champion.note],
        [1, [move.path], 1, undefined],
        `${id}: ${JSON.stringify(round)}`,
      );
      assert.is(showFile(repo, `leap/calc-${sandbox}/spine`, move.path), move.content);
    }
    // The user's tree: untouched, node_modules ignored and whole, nothing of vite's written there by a sandboxed proof.
    assert.is(git(repo, 'status', '--porcelain', '--', '.', ':!.leap'), '');
    if (sandbox === 'on')
      assert.not.ok(existsSync(join(repo, 'node_modules', '.vite-temp')), 'vite wrote the main tree');
    assert.equal(extraWorktrees(repo), []);
    assert.not.ok(existsSync(slicePaths(repo, `calc-${sandbox}`).worktrees));
  });
}

project.run();

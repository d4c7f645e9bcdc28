// Real test runners in the sandbox (issue 44 section 2): vitest 3 with a vitest.config.ts, jest, pytest in a virtual
// environment, Go and cargo, each with its repository in /tmp, network off. As a reader each suite passes and what it
// writes outside the tracked files (vite's node_modules/.vite-temp, .pytest_cache, target/, ~/.cache/go-build) is
// thrown away; as a writer it is the user's own. Then the sandbox's promises again, a real project inside, its
// suite run first in every hostile leaf.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { git } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import type { SandboxRole } from '../src/sandbox-plan.js';
import { killStrays } from './helpers.js';
import { PROMISES, sceneRoot, world } from './hostile-checks.js';
import { RUNNERS, type Runner, makeProject } from './real-projects.js';

const made: string[] = [];
test.after.each(() => killStrays());
test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Every path under `dir` with its mtime, not inside .git nor below a node_modules entry (each entry once). */
function look(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      out.push(`${relative(dir, path)} ${statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 'dangling'}`);
      if (entry.isDirectory() && entry.name !== '.git' && !at.endsWith('node_modules')) walk(path);
    }
  };
  walk(dir);
  return out.sort();
}

async function suiteAs(role: SandboxRole, repo: string, home: string, testCmd: string): Promise<string> {
  const out = join(home, '..', `${role}.out`);
  const result = await supervise({
    name: `suite-${role}`,
    command: 'bash',
    args: ['-c', testCmd],
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      LANG: 'C.UTF-8',
      VERI_TIMEOUT: '300',
      VERI_KILL_AFTER: '1',
      VERI_STATE_DIR: join(home, '..', 'state'),
    },
    sandbox: { role, tree: repo, network: false },
    io: { stdoutFile: out, stderrFile: out },
  });
  const seen = readFileSync(out, 'utf8');
  assert.is(result.code, 0, `${role}: ${testCmd}\n${seen}`);
  return seen;
}

/** Where each runner writes beside the tracked files when its suite passes: in the tree, or in home. */
const WRITES: Record<Runner, { tree?: string; home?: string }> = {
  vitest: { tree: 'node_modules/.vite/vitest' },
  jest: {},
  pytest: { tree: '.pytest_cache' },
  go: { home: '.cache/go-build' },
  cargo: { tree: 'target' },
};

for (const runner of RUNNERS) {
  test(`${runner}: the suite passes as a reader (its writes thrown away) and as a writer (its writes the user's), the repository in /tmp`, async () => {
    const base = mkdtempSync(join(tmpdir(), `leap-real-${runner}-`));
    made.push(base);
    const repo = join(base, 'repo');
    const home = join(base, 'home');
    mkdirSync(join(home, '.cache'), { recursive: true });
    const testCmd = makeProject(runner, repo);
    const tree = look(repo);
    await suiteAs('reader', repo, home, testCmd);
    assert.equal(look(repo), tree, "nothing of the reader's run is in the user's tree, its node_modules included");
    assert.equal([readdirSync(home), readdirSync(join(home, '.cache'))], [['.cache'], []], 'nor in home');
    await suiteAs('writer', repo, home, testCmd);
    const { tree: inTree, home: inHome } = WRITES[runner];
    if (inTree !== undefined)
      assert.ok(statSync(join(repo, inTree)).isDirectory(), `the writer's ${inTree} is the user's`);
    if (inHome !== undefined)
      assert.ok(statSync(join(home, inHome)).isDirectory(), `the writer's ~/${inHome} is the user's`);
    assert.is(git(repo, 'status', '--porcelain'), '', 'nothing tracked or untracked changed');
  });
}

const ROOT = sceneRoot(['/var/lib', '/run']);
made.push(ROOT);
for (const runner of RUNNERS) {
  for (const [title, check] of PROMISES) {
    test(`${runner} inside: ${title}`, async () => {
      const w = world(ROOT, (repo) => `${makeProject(runner, repo)}`);
      try {
        await check(w);
      } finally {
        rmSync(w.base, { recursive: true, force: true });
      }
    });
  }
}

test.run();

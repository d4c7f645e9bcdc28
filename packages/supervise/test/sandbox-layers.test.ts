// What a test run writes outside the tracked files, through a real bwrap (CONTRACT section 13): a tool stands in
// for vite (it writes node_modules/.vite-temp and node_modules/.cache) and Go (~/.cache/go-build). A reader's
// writes land in a throwaway layer and never reach the user's tree or home; a writer's are the user's own. The
// repository lies anywhere: in /tmp, in a home of mode 0700, under a name made of quotes, $, backticks and more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { git } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import type { SandboxSpec } from '../src/sandbox-plan.js';
import { killStrays } from './helpers.js';

const made: string[] = [];
test.after.each(() => killStrays());
test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** What the tool tries, each answered `ok`, a value, or the error's code. */
const TOOL = `#!/usr/bin/env node
const fs = require('node:fs');
const home = process.env.HOME;
const seen = {};
const attempt = (name, fn) => { try { seen[name] = fn() ?? 'ok'; } catch (e) { seen[name] = e.code ?? e.message; } };
attempt('dep', () => require('dep'));
attempt('workspace', () => require('@ws/lib'));
attempt('viteTemp', () => { fs.mkdirSync('node_modules/.vite-temp'); fs.writeFileSync('node_modules/.vite-temp/c.mjs', '1'); });
attempt('oldCache', () => fs.existsSync('node_modules/.cache/old'));
attempt('newCache', () => { fs.mkdirSync('node_modules/.cache/t', { recursive: true }); fs.writeFileSync('node_modules/.cache/t/x', '1'); });
attempt('intoDep', () => fs.writeFileSync('node_modules/dep/planted', '1'));
attempt('goBuild', () => { fs.mkdirSync(home + '/.cache/go-build', { recursive: true }); fs.writeFileSync(home + '/.cache/go-build/entry', '1'); });
attempt('bashrc', () => fs.appendFileSync(home + '/.bashrc', 'x'));
attempt('key', () => fs.readFileSync(home + '/.ssh/id_ed25519', 'utf8'));
process.stdout.write(JSON.stringify(seen));
`;

/** A repository at `repo` whose ignored node_modules holds a dependency, a workspace link, the tool and an old cache. */
function project(repo: string): void {
  const files: Record<string, string> = {
    '.gitignore': 'node_modules/\n',
    'packages/lib/index.js': "module.exports = 'lib-v1';\n",
    'node_modules/dep/index.js': "module.exports = 'dep-v1';\n",
    'node_modules/tool/cli.js': TOOL,
    'node_modules/.cache/old': 'old\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  mkdirSync(join(repo, 'node_modules', '.bin'));
  mkdirSync(join(repo, 'node_modules', '@ws'));
  symlinkSync('../tool/cli.js', join(repo, 'node_modules', '.bin', 'tool'));
  symlinkSync('../../packages/lib', join(repo, 'node_modules', '@ws', 'lib'));
  chmodSync(join(repo, 'node_modules', 'tool', 'cli.js'), 0o755);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'initial');
}

function fakeHome(home: string): void {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'the key\n');
  writeFileSync(join(home, '.bashrc'), 'export A=1\n');
}

/** Run `command` in `repo` as `role`; its exit code and output. */
async function run(
  repo: string,
  home: string,
  role: SandboxSpec['role'],
  spec: Partial<SandboxSpec>,
  command: string,
  args: string[] = [],
) {
  const out = join(dirname(home), `tool-${role}.out`);
  const result = await supervise({
    name: `leaf-${role}`,
    command,
    args,
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      VERI_TIMEOUT: '30',
      VERI_KILL_AFTER: '0.3',
      VERI_STATE_DIR: join(dirname(home), 'state'),
    },
    sandbox: { role, tree: repo, ...spec },
    io: { stdoutFile: out, stderrFile: `${out}.err` },
  });
  return { code: result.code, text: readFileSync(out, 'utf8'), err: readFileSync(`${out}.err`, 'utf8') };
}

/** Run the tool in `repo` as `role`; what it saw. */
async function runTool(
  repo: string,
  home: string,
  role: SandboxSpec['role'],
  spec: Partial<SandboxSpec> = {},
): Promise<Record<string, unknown>> {
  const { code, text, err } = await run(repo, home, role, spec, 'node_modules/.bin/tool');
  assert.is(code, 0, `${text}${err}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Places a repository may lie: [what, repo, home]. */
function places(): [string, string, string][] {
  const base = mkdtempSync(join(tmpdir(), 'leap-layers-'));
  made.push(base);
  const closed = join(base, 'closed-home');
  mkdirSync(closed);
  chmodSync(closed, 0o700);
  return [
    ['in /tmp', join(base, 'repo'), join(base, 'home')],
    ['in a home of mode 0700', join(closed, 'src', 'repo'), closed],
    [
      'under a name of spaces, quotes, $, backticks and non-ASCII',
      join(base, 'my "odd" \'dir\' $HOME `id` é漢', 'repo'),
      join(base, 'home2'),
    ],
  ];
}

test("reader: vite's .vite-temp, node_modules/.cache and ~/.cache/go-build are writable, in a throwaway layer; the user's tree and home untouched", async () => {
  for (const [where, repo, home] of places()) {
    project(repo);
    fakeHome(home);
    const seen = await runTool(repo, home, 'reader');
    assert.equal(
      seen,
      {
        dep: 'dep-v1',
        workspace: 'lib-v1',
        viteTemp: 'ok',
        oldCache: false,
        newCache: 'ok',
        intoDep: 'EROFS',
        goBuild: 'ok',
        bashrc: 'EROFS',
        key: 'ENOENT',
      },
      where,
    );
    assert.equal(
      readdirSync(join(repo, 'node_modules')).sort(),
      ['.bin', '.cache', '@ws', 'dep', 'tool'],
      `${where}: nothing new in the user's node_modules`,
    );
    assert.equal(readdirSync(join(repo, 'node_modules', '.cache')), ['old'], where);
    assert.not.ok(existsSync(join(repo, 'node_modules', 'dep', 'planted')), where);
    assert.equal(readdirSync(join(home, '.cache')), [], `${where}: nothing in the user's ~/.cache`);
    assert.is(readFileSync(join(home, '.bashrc'), 'utf8'), 'export A=1\n', where);
    assert.is(git(repo, 'status', '--porcelain'), '', where);
  }
});

test("writer: the same writes are the user's own, as outside the sandbox; the rest of home stays read-only, its keys absent", async () => {
  for (const [where, repo, home] of places()) {
    project(repo);
    fakeHome(home);
    const seen = await runTool(repo, home, 'writer');
    assert.equal(
      seen,
      {
        dep: 'dep-v1',
        workspace: 'lib-v1',
        viteTemp: 'ok',
        oldCache: true,
        newCache: 'ok',
        intoDep: 'ok',
        goBuild: 'ok',
        bashrc: 'EROFS',
        key: 'ENOENT',
      },
      where,
    );
    assert.is(readFileSync(join(repo, 'node_modules', '.vite-temp', 'c.mjs'), 'utf8'), '1', where);
    assert.is(readFileSync(join(home, '.cache', 'go-build', 'entry'), 'utf8'), '1', where);
    assert.is(readFileSync(join(home, '.bashrc'), 'utf8'), 'export A=1\n', where);
  }
});

test('nesting: a declared path holding the tree or inside it leaves a writer its tree read-write and a reader its copy, for real', async () => {
  const [, repo, home] = places()[0] as [string, string, string];
  project(repo);
  fakeHome(home);
  const scripts = join(dirname(repo), 'scripts');
  mkdirSync(scripts);
  for (const read of [[dirname(repo)], [join(repo, 'packages')]]) {
    const seen = await runTool(repo, home, 'writer', { read });
    assert.is(seen.viteTemp, 'ok', `read ${read[0]}`);
    rmSync(join(repo, 'node_modules', '.vite-temp'), { recursive: true });
  }
  for (const write of [[dirname(repo)], [join(repo, 'node_modules')]]) {
    const seen = await runTool(repo, home, 'reader', { write });
    assert.is(seen.intoDep, 'EROFS', `write ${write[0]}: a reader never writes the user's tree`);
    assert.not.ok(existsSync(join(repo, 'node_modules', '.vite-temp')), `write ${write[0]}`);
  }
});

test("reader: a worktree's node_modules linked to the main repository's is a layer over it; a link out of it stays unresolved", async () => {
  const [, repo, home] = places()[0] as [string, string, string];
  project(repo);
  fakeHome(home);
  const wt = join(dirname(repo), 'wt');
  git(repo, 'worktree', 'add', '-q', '--detach', wt);
  symlinkSync(join(repo, 'node_modules'), join(wt, 'node_modules'));
  const seen = await runTool(wt, home, 'reader');
  assert.equal([seen.dep, seen.workspace, seen.viteTemp, seen.intoDep], ['dep-v1', 'lib-v1', 'ok', 'EROFS']);
  assert.not.ok(existsSync(join(repo, 'node_modules', '.vite-temp')), "the main repository's node_modules untouched");
  const outside = mkdtempSync(join(tmpdir(), 'leap-outside-'));
  made.push(outside);
  writeFileSync(join(outside, 'secret'), 'not for a reader\n');
  const planted = join(dirname(repo), 'wt2');
  git(repo, 'worktree', 'add', '-q', '--detach', planted);
  symlinkSync(outside, join(planted, 'node_modules'));
  const { text, err } = await run(planted, home, 'reader', {}, 'cat', ['node_modules/secret']);
  assert.not.ok(text.includes('not for a reader'), text);
  assert.match(err, 'No such file or directory');
});

test.run();

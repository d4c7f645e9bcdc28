// A fresh clone, the README's set-up, and the first commands a new user runs (issue 11): every bin is
// linked, Nx runs every task with CI's settings, and nothing is left dirty. Slow (a real build).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { $, type ProcessOutput } from 'zx';
import { cleanupTempDirs, commandLimitMs, git, makeTempDir, repoRoot } from '@leap/test-utils';

const firstContact = suite('a fresh clone: npm ci && npm run build, then npx');
firstContact.after(cleanupTempDirs);

let clone = '';
// The first step that failed: the steps after it say so instead of failing on its leftovers.
let failedAt: string | null = null;
function step(name: string, body: () => Promise<void> | void): void {
  firstContact(name, async () => {
    assert.is(failedAt, null, `not run: an earlier step failed (${failedAt})`);
    try {
      await body();
    } catch (error) {
      failedAt = name;
      throw error;
    }
  });
}

// The clone's own environment: none of the outer npm's or Nx's variables, CI's Nx settings added.
function cloneEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|NX_)/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

// The NX_* settings the README's test command (tools/test.sh, which is all .ci/run runs) exports, read from
// the clone's copy (so the test checks what CI does).
function ciNxSettings(dir: string): Record<string, string> {
  const text = readFileSync(join(dir, 'tools', 'test.sh'), 'utf8');
  const settings: Record<string, string> = {};
  for (const line of text.split('\n').filter((l) => l.startsWith('export '))) {
    for (const [, key, value] of line.matchAll(/\b(NX_[A-Z_]+)=([A-Za-z0-9_.-]+)/g)) settings[key!] = value!;
  }
  return settings;
}

function show(step: string, result: ProcessOutput): string {
  const { exitCode, stdout, stderr } = result;
  return `${step}: exit ${exitCode}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`;
}

// zx's `$` in `cwd` with `env`, quiet, a failure a result, killed past commandLimitMs().
const sh = (cwd: string, env = cloneEnv()) => $({ cwd, env, nothrow: true, quiet: true, timeout: commandLimitMs() });

// Every workspace package's manifest in the clone (packages/*, plugins/*, tests/*).
function manifests(dir: string): { name: string; bin?: Record<string, string>; scripts?: Record<string, string> }[] {
  return ['packages', 'plugins', 'tests'].flatMap((top) =>
    readdirSync(join(dir, top))
      .map((d) => join(dir, top, d, 'package.json'))
      .filter((f) => existsSync(f))
      .map((f) => JSON.parse(readFileSync(f, 'utf8'))),
  );
}

step('the clone installs exactly what the lockfile says (npm ci)', async () => {
  clone = join(makeTempDir('leap-first-contact-'), 'leap');
  git(repoRoot, 'clone', '--quiet', '--no-hardlinks', repoRoot, clone);
  const ci = await sh(clone)`npm ci --prefer-offline --no-audit --no-fund`;
  assert.is(ci.exitCode, 0, show('npm ci (a workspace missing from package-lock.json makes npm ci refuse)', ci));
});

step("npm run build, with the test command's Nx settings, runs every build and replays none", async () => {
  const nx = ciNxSettings(clone);
  assert.is(nx.NX_SKIP_NX_CACHE, 'true', 'tools/test.sh must export NX_SKIP_NX_CACHE=true');
  const build = await sh(clone, cloneEnv(nx))`npm run build`;
  assert.is(build.exitCode, 0, show('npm run build', build));
  // Nx colours its summary even into a pipe: the escapes go before matching.
  const output = (build.stdout + build.stderr).replace(/\x1b\[[0-9;]*m/g, '');
  const projects = manifests(clone).filter((m) => m.scripts?.build !== undefined).length;
  assert.ok(projects >= 10, `expected the workspace's projects with a build script, found ${projects}`);
  assert.match(
    output,
    new RegExp(`Successfully ran target build for ${projects} projects`),
    show('the Nx summary', build),
  );
  assert.not.match(output, /\[(local|remote) cache\]|existing outputs match the cache|read the output from the cache/);
  assert.match(output, /Cache:\s+Skipped/);
});

step('every bin is linked in node_modules/.bin and answers --help through npx', async () => {
  const bins = manifests(clone).flatMap((m) => Object.keys(m.bin ?? {}));
  for (const expected of ['leap', 'leap-supervise', 'leap-ledger', 'leap-verify', 'leap-event'])
    assert.ok(bins.includes(expected), `no package declares the bin ${expected}`);
  for (const name of bins) {
    assert.ok(existsSync(join(clone, 'node_modules', '.bin', name)), `${name} is not linked in node_modules/.bin`);
    // --no-install: a bin missing locally fails here at once instead of asking the registry for it.
    const help = await sh(clone)`npx --no-install ${name} --help`;
    assert.is(help.exitCode, 0, show(`npx ${name} --help`, help));
    assert.match(help.stdout, /^Usage: /m, `npx ${name} --help printed no usage`);
  }
  const supervise = await sh(clone)`npx leap-supervise --help`;
  assert.match(
    supervise.stdout,
    /^Usage: leap-supervise (\[[^\]]+\] )*NAME CMD/m,
    show('npx leap-supervise --help', supervise),
  );
  const leap = await sh(clone)`npx leap --help`;
  assert.match(leap.stdout, /^Usage: leap COMMAND/m, show('npx leap --help', leap));
});

step('the set-up leaves git status clean', () => {
  assert.is(git(clone, 'status', '--porcelain', '--untracked-files=all'), '');
});

// The README's quick start after the set-up above: its lines run in bash as they are written, with a home of their
// own (~/leap is this clone, ~/your-project a new repository of a user's), then every step leap demo and leap init
// --try print, pasted as they are. Issue 42: a newcomer's first ten minutes take no wrong turn.
step(
  "the README's quick start: the demo, the pack, the install into a new repository, init --try; every printed step works",
  async () => {
    const blocks = [...readFileSync(join(clone, 'README.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
      (m[1] as string).trim().split('\n'),
    );
    const [setup = [], start = []] = blocks;
    assert.match(setup[0] ?? '', /^git clone \S+ ~\/leap && cd ~\/leap$/);
    assert.match(
      setup[1] ?? '',
      /^npm ci && npm run build && npx leap demo {2,}#/,
      'the set-up run above, then the demo',
    );
    const home = makeTempDir('leap-home-');
    symlinkSync(clone, join(home, 'leap'));
    const project = join(home, 'your-project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'your-project', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
    );
    const who = {
      GIT_AUTHOR_NAME: 'u',
      GIT_AUTHOR_EMAIL: 'u@x.invalid',
      GIT_COMMITTER_NAME: 'u',
      GIT_COMMITTER_EMAIL: 'u@x.invalid',
    };
    const env = cloneEnv({ HOME: home, npm_config_cache: join(homedir(), '.npm'), ...who });
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'add', '-A');
    git(project, '-c', 'user.name=u', '-c', 'user.email=u@x.invalid', 'commit', '-q', '-m', 'a project of mine');
    const bash = (script: string, cwd: string) => sh(cwd, env)`bash -c ${`set -e\n${script}`}`;

    const demo = await bash(setup[1]?.replace(/^npm ci && npm run build && /, '') ?? '', join(home, 'leap'));
    assert.is(demo.exitCode, 0, show('npx leap demo', demo));
    const look = /^ {2}the run +(npx leap status --dir \S+) {3}\(/m.exec(demo.stdout)?.[1];
    assert.ok(look !== undefined, show('the demo names the command that shows its run', demo));
    const status = await bash(look, join(home, 'leap'));
    assert.is(status.exitCode, 0, show(look, status));
    assert.match(status.stdout.replace(/\x1b\[[0-9;]*m/g, ''), /^Issue 1 {2}Slugify step titles$/m);

    const init = await bash(start.join('\n'), join(home, 'leap'));
    assert.is(init.exitCode, 0, show(start.join('; '), init));
    const printed = /^Next, to try the loop now[^\n]*\n((?: {2}.*\n)+)/m.exec(init.stdout)?.[1];
    assert.ok(printed !== undefined, show('leap init --try prints its next steps', init));
    const steps = printed
      .trimEnd()
      .split('\n')
      .map((l) => l.slice(2));
    assert.match(steps[1] ?? '', /^npx leap tdd run --issue 2 /);
    for (const line of steps) {
      const ran = await bash(line, project);
      assert.is(ran.exitCode, 0, show(line, ran));
    }
    assert.is(git(project, 'status', '--porcelain'), '');
    assert.is(git(project, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');
    assert.is(git(project, 'rev-list', '--count', 'main..leap/issue-2').trim(), '4', 'plan, red, green, refactor');
    // The BullMQ runner was left out: leap worker names the command that installs it.
    const worker = await bash('npx leap worker --help', project);
    assert.is(worker.exitCode, 2);
    assert.match(
      worker.stderr,
      /leap worker needs the package @leap\/runner-bullmq, which is not installed: npm i -D @leap\/runner-bullmq/,
    );
  },
);

firstContact.run();

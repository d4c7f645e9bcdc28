// The real projects: each fetched once from Debian's archive with apt (a source package's upstream tarball, or
// a binary package that ships the project's source), checked against its sha256, its npm dependencies installed
// once with `npm ci`; all of it cached outside the repository, so a second run uses no network.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, makeTempDir } from '@leap/test-utils';

export const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
/** `LEAP_TEST_CACHE`, else `$XDG_CACHE_HOME/leap-test`, else `~/.cache/leap-test`, as tests/real-agents. */
const CACHE = join(
  process.env.LEAP_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'leap-test'),
  'real-projects',
);

interface Ball {
  scope: string[];
  proof: string[];
}
export interface Project {
  name: string;
  runner: string;
  upstream: string;
  version: string;
  source: {
    debian: 'source' | 'binary';
    suite: string;
    package: string;
    version: string;
    file: string;
    sha256: string;
    root: string;
    drop?: string[];
  };
  testCmd: string;
  /** The project's own tests that fail at random, each with why: a verdict they alone fail is not held against us. */
  flaky?: Record<string, string>;
  install: string | null;
  lockfile: boolean;
  where: 'tmp' | 'home';
  gitignore?: string;
  /** Files the user's set-up commit renames (FROM: TO), as a user who moved a config to TypeScript would. */
  rename?: Record<string, string>;
  issue: { title: string; criteria: string[] };
  step: string;
  hidden: string | null;
  catalogue: string[];
  balls: Record<string, Ball>;
}

/** Whether `text` (a verdict's reason, a run's output) names one of the project's own flaky tests. */
export const namesTheirFlaky = (p: Project, text: string): boolean =>
  Object.keys(p.flaky ?? {}).some((t) => text.includes(t));

/** Whether a suite's output names one of the project's own flaky tests on a line that is not a pass (`✔`). */
export const failsTheirFlaky = (p: Project, suites: string): boolean =>
  suites.split('\n').some((line) => !line.includes('✔') && namesTheirFlaky(p, line));

/** Whether a run failed on one of the project's own flaky tests: its output names one, or a failed suite fails one. */
export const ranIntoTheirFlaky = (p: Project, run: { out: string; suites: string }): boolean =>
  namesTheirFlaky(p, run.out) || failsTheirFlaky(p, run.suites);

/** `attempt` again (three times in all at most) while `theirs` says it failed on the project's own flaky test. */
export async function beyondTheirFlaky<T>(p: Project, attempt: () => Promise<T>, theirs: (r: T) => boolean) {
  let result = await attempt();
  for (let more = 2; more > 0 && p.flaky !== undefined && theirs(result); more--) result = await attempt();
  return result;
}

/** Every project of projects/, or those LEAP_REAL_PROJECTS names (`bytes,toolz`). */
export function projects(): Project[] {
  const only = process.env.LEAP_REAL_PROJECTS?.split(',');
  return readdirSync(join(HERE, 'projects'))
    .filter((name) => only === undefined || only.includes(name))
    .sort()
    .map((name) => ({
      name,
      ...(JSON.parse(readFileSync(join(HERE, 'projects', name, 'project.json'), 'utf8')) as Omit<Project, 'name'>),
    }));
}

export const patchFile = (p: Project, name: string): string =>
  join(HERE, 'projects', p.name, 'patches', `${name}.patch`);

const run = (cmd: string, args: string[], cwd?: string): string =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 600_000,
    maxBuffer: 64 << 20,
  });

/** apt options for a private list of `suite`'s packages and sources, taken from the machine's own Debian entry. */
function aptOptions(suite: string): string[] {
  const dir = join(CACHE, 'apt', suite);
  const opts = [
    '-o',
    'Dir::Etc::SourceList=/dev/null',
    '-o',
    `Dir::Etc::SourceParts=${join(dir, 'etc')}`,
    '-o',
    `Dir::State::Lists=${join(dir, 'lists')}`,
  ];
  if (existsSync(join(dir, 'ready'))) return opts;
  const system = readFileSync('/etc/apt/sources.list.d/debian.sources', 'utf8');
  const uris = /^URIs:\s*(\S+)/m.exec(system)?.[1];
  if (uris === undefined)
    throw new Error('/etc/apt/sources.list.d/debian.sources names no URIs: cannot reach Debian archive');
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    mkdirSync(join(staging, 'etc'));
    mkdirSync(join(staging, 'lists', 'partial'), { recursive: true });
    const keyring = /^Signed-By:\s*(\S+)/m.exec(system)?.[1] ?? '/usr/share/keyrings/debian-archive-keyring.gpg';
    writeFileSync(
      join(staging, 'etc', 'leap.sources'),
      `Types: deb deb-src\nURIs: ${uris}\nSuites: ${suite}\nComponents: main\nSigned-By: ${keyring}\n`,
    );
    const at = (path: string) => (o: string) => o.replace(dir, path);
    run('apt-get', [...opts.map(at(staging)), 'update', '-qq']);
    writeFileSync(join(staging, 'ready'), '');
    settle(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return opts;
}

/** `staging` (complete, with its `ready`) becomes `dir`, unless another process made `dir` first: theirs stays. */
function settle(staging: string, dir: string): void {
  for (let tries = 2; ; tries--) {
    try {
      renameSync(staging, dir);
      return;
    } catch (error) {
      if (existsSync(join(dir, 'ready'))) return;
      if (tries === 0) throw error;
    }
    // A folder an interrupted run left half made (no `ready`).
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The project's artifact in the cache, downloaded by apt and checked against its sha256. */
function artifact(p: Project): string {
  const s = p.source;
  const file = join(CACHE, 'downloads', s.file);
  if (!existsSync(file)) {
    const opts = aptOptions(s.suite);
    const what =
      s.debian === 'source'
        ? ['source', '--print-uris', `${s.package}=${s.version}`]
        : ['download', '--print-uris', `${s.package}=${s.version}`];
    const line = run('apt-get', [...opts, ...what])
      .split('\n')
      .find((l) => l.includes(` ${s.file} `));
    const uri = line === undefined ? undefined : /^'([^']+)'/.exec(line)?.[1];
    if (uri === undefined)
      throw new Error(`${p.name}: apt offers no ${s.file} for ${s.package}=${s.version} (${s.suite})`);
    mkdirSync(dirname(file), { recursive: true });
    const part = `${file}.${process.pid}.part`;
    run('/usr/lib/apt/apt-helper', ['download-file', uri, part, `SHA256:${s.sha256}`]);
    renameSync(part, file);
  }
  const sum = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (sum !== s.sha256) throw new Error(`${p.name}: ${file} has sha256 ${sum}, not ${s.sha256}`);
  return file;
}

/** The project's upstream tree (and its node_modules, installed once), in the cache. */
function projectTree(p: Project): string {
  const dir = join(CACHE, `${p.name}-${p.version}`);
  if (existsSync(join(dir, 'ready'))) return join(dir, 'tree');
  const file = artifact(p);
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    const raw = join(staging, 'raw');
    mkdirSync(raw);
    if (p.source.debian === 'source') run('tar', ['-xf', file, '-C', raw]);
    else run('dpkg-deb', ['-x', file, raw]);
    const tree = join(staging, 'tree');
    renameSync(join(raw, p.source.root), tree);
    for (const path of p.source.drop ?? []) rmSync(join(tree, path), { force: true });
    if (p.lockfile) cpSync(join(HERE, 'projects', p.name, 'package-lock.json'), join(tree, 'package-lock.json'));
    if (p.install === 'npm ci') run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], tree);
    writeFileSync(join(staging, 'ready'), '');
    settle(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(dir, 'tree');
}

/** A folder like a user's home: mode 0700, its path with a space and non-ASCII text. */
function homeLike(): string {
  const home = makeTempDir('leap-home-');
  chmodSync(home, 0o700);
  const dir = join(home, 'Mes projets (été)');
  mkdirSync(dir);
  return dir;
}

/**
 * The project as a user has it: its upstream commit, then the user's own set-up commit (leap.config.json naming
 * its plain test command, the issue, and the lockfile or .gitignore its upstream tree lacks), node_modules in place.
 */
export function makeProjectRepo(p: Project, where: 'tmp' | 'home' = p.where): string {
  const tree = projectTree(p);
  const repo = join(where === 'home' ? homeLike() : makeTempDir(`leap-real-${p.name}-`), p.name);
  cpSync(tree, repo, {
    recursive: true,
    filter: (src) => !src.startsWith(join(tree, 'node_modules')) && src !== join(tree, 'package-lock.json'),
  });
  const g = (...args: string[]) => git(repo, ...args);
  g('init', '-q', '-b', 'main');
  g('config', 'user.name', 'Real User');
  g('config', 'user.email', 'user@example.invalid');
  g('config', 'commit.gpgsign', 'false');
  if (p.lockfile || existsSync(join(tree, 'package-lock.json'))) {
    if (!p.lockfile) cpSync(join(tree, 'package-lock.json'), join(repo, 'package-lock.json'));
  }
  g('add', '-A');
  g('commit', '-q', '-m', `${p.name} ${p.version} as upstream released it`);
  writeFileSync(join(repo, 'leap.config.json'), `${JSON.stringify({ testCommand: p.testCmd }, null, 2)}\n`);
  if (p.lockfile) cpSync(join(tree, 'package-lock.json'), join(repo, 'package-lock.json'));
  if (p.gitignore !== undefined) writeFileSync(join(repo, '.gitignore'), p.gitignore);
  for (const [from, to] of Object.entries(p.rename ?? {})) g('mv', from, to);
  mkdirSync(join(repo, '.tdd', 'issues'), { recursive: true });
  const criteria = p.issue.criteria.map((c) => `- [ ] ${c}`).join('\n');
  writeFileSync(
    join(repo, '.tdd', 'issues', '1.md'),
    `# ${p.issue.title}\n\nA small feature of ${p.name}.\n\n## Acceptance criteria\n\n${criteria}\n`,
  );
  g('add', '-A');
  g('commit', '-q', '-m', 'set up leap');
  if (existsSync(join(tree, 'node_modules')))
    run('cp', ['-al', join(tree, 'node_modules'), join(repo, 'node_modules')]);
  return repo;
}

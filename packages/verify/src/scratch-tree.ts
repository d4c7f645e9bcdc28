// A commit's throw-away tree: a hand-made repository borrowing objects via alternates.
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { DEFAULT_LINK_READ_ONLY, hostView, ignoredEntries, layerEntries, type SandboxSpec } from '@leap/supervise';
import { gitOrNull, gitStdout } from './git.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'; // where a root commit's files are set aside to

/** Removed whatever the end (a signal re-raised after); `setAside` as in the parent; `tree`: other files, same HEAD. */
export async function withScratchTree<T>(
  repo: string,
  commit: string,
  skip: readonly string[],
  work: (dir: string) => Promise<T>,
  setAside: readonly string[] = [],
  tree?: string,
): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), 'leap-verify-'));
  const dir = join(scratch, 'tree');
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup();
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    process.kill(process.pid, signal);
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    const { gitDir, objects } = makeCopyRepository(repo, dir, commit);
    const env = { ...process.env, GIT_INDEX_FILE: join(gitDir, 'index') };
    gitStdout(repo, ['--work-tree', dir, 'read-tree', '-u', '--reset', tree ?? commit], env);
    setAsideFiles(repo, dir, commit, setAside, env);
    const reads = linkIgnoredEntries(repo, dir, skip, gitDir);
    scratches.set(dir, { read: [...reads.read, hostView.realpath(objects) ?? objects], layers: reads.layers });
    return await work(dir);
  } finally {
    scratches.delete(dir);
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    cleanup();
  }
}

// --no-overlay removes what the parent lacks; a path the commit lacks is set aside already (and fails the pathspec).
function setAsideFiles(repo: string, dir: string, commit: string, paths: readonly string[], env: NodeJS.ProcessEnv) {
  const files = paths.filter((path) => lstatSync(join(dir, path), { throwIfNoEntry: false }) !== undefined);
  if (files.length === 0) return;
  const checkout = (from: string) =>
    gitStdout(repo, ['--work-tree', dir, 'checkout', '--no-overlay', '-q', from, '--', ...files], env);
  try {
    checkout(`${commit}^`);
  } catch (error) {
    if (gitOrNull(repo, ['rev-parse', '--verify', '-q', `${commit}^`]) !== null) throw error;
    checkout(EMPTY_TREE);
  }
}

// The smallest repository git accepts; one rev-parse, none for a full sha in a plain `.git`. The user's is only read.
function makeCopyRepository(repo: string, dir: string, commit: string): { gitDir: string; objects: string } {
  const own = /^[0-9a-f]{40}$/.test(commit) ? ownGitDir(repo) : null;
  const ask = ['rev-parse', '--path-format=absolute', '--git-common-dir', `${commit}^{commit}`];
  const [common, sha] = own !== null ? [own, commit] : gitStdout(repo, ask).trim().split('\n');
  const gitDir = join(dir, '.git');
  mkdirSync(join(gitDir, 'objects', 'info'), { recursive: true });
  mkdirSync(join(gitDir, 'refs'));
  writeFileSync(join(gitDir, 'HEAD'), `${sha}\n`);
  writeFileSync(join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  const objects = join(common ?? '', 'objects');
  writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${objects}\n`);
  return { gitDir, objects };
}

function ownGitDir(repo: string): string | null {
  if (['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY'].some((name) => process.env[name] !== undefined))
    return null;
  const gitDir = resolve(repo, '.git');
  const is = (path: string) => lstatSync(path, { throwIfNoEntry: false });
  const own = is(gitDir)?.isDirectory() === true && is(join(gitDir, 'objects'))?.isDirectory() === true;
  return own && is(join(gitDir, 'commondir')) === undefined ? gitDir : null;
}

/** Never linked, keyed on paths or mtimes: the user's next build would reuse the copy's (cargo's `target/`). */
const UNSHARED_BUILD_CACHES: readonly string[] = (
  'target build _build obj dist-newstyle .build .gradle .stack-work .zig-cache zig-cache __pycache__ .pytest_cache ' +
  '.mypy_cache .ruff_cache .next .nuxt .turbo .parcel-cache .nx CMakeFiles coverage .nyc_output'
).split(' ');

function isUnsharedCache(name: string): boolean {
  return UNSHARED_BUILD_CACHES.includes(name) || name.endsWith('.tsbuildinfo') || name.startsWith('cmake-build-');
}

const scratches = new Map<string, ScratchReads>();
export type ScratchReads = Required<Pick<SandboxSpec, 'read' | 'layers'>>;

export function scratchReads(dir: string): ScratchReads | undefined {
  return scratches.get(dir);
}

// A dependency folder becomes a folder of links (vite's `.vite-temp` stays in the copy); what lies outside is not read.
function linkIgnoredEntries(repo: string, dir: string, skip: readonly string[], gitDir: string): ScratchReads {
  const root = hostView.realpath(repo) ?? repo;
  const linked: string[] = [];
  const reads: ScratchReads = { read: [], layers: [] };
  for (const name of ignoredEntries(repo)) {
    if (name.includes('/') || name === '.git' || skip.includes(name) || isUnsharedCache(name)) continue;
    const target = hostView.realpath(join(repo, name)) ?? join(repo, name);
    const ours = target.startsWith(`${root}${sep}`);
    if (DEFAULT_LINK_READ_ONLY.includes(name) && hostView.kind(target) === 'dir') {
      linkEntries(target, join(dir, name));
      if (ours) reads.layers.push({ dir: join(dir, name), over: target });
    } else {
      symlinkSync(target, join(dir, name));
      if (ours) reads.read.push(target);
    }
    linked.push(name);
  }
  // A link is not a folder to git, so a `node_modules/` pattern would not ignore it: the copy ignores each by name.
  if (linked.length === 0) return reads;
  mkdirSync(join(gitDir, 'info'));
  const patterns = linked.map((name) => `/${name.replace(/([\\*?[!#])/g, '\\$1')}\n`);
  writeFileSync(join(gitDir, 'info', 'exclude'), patterns.join(''));
  return reads;
}

function linkEntries(target: string, dir: string): void {
  mkdirSync(dir);
  for (const entry of layerEntries(target, hostView)) {
    const path = join(dir, entry.path);
    if (entry.kind === 'dir') mkdirSync(path);
    else symlinkSync(entry.target ?? join(target, entry.path), path);
  }
}

export function topLevelName(repo: string, path: string): string | null {
  const rel = relative(repo, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith('/')) return null;
  return rel.split('/')[0] as string;
}

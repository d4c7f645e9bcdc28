// A throw-away copy of a commit's tree, so checks that need a changed tree never touch the user's: a
// repository of its own made by hand (HEAD detached at the commit, the user's objects borrowed through
// objects/info/alternates, its own index), checked out by one read-tree. Never `git worktree add`, which
// costs three processes (add, its update-ref and reset --hard) and two more to remove and prune, all
// under the repository's own locks. A test suite that runs git inside finds HEAD, the log and a clean
// status, and whatever it commits stays in the copy.
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { DEFAULT_LINK_READ_ONLY, hostView, layerEntries, type SandboxSpec } from '@leap/supervise';
import { gitStdout, splitNul } from './git.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** The tree with nothing in it: what a root commit's files are set aside to. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * Run `work` in a folder holding `commit`'s tree, with `setAside` (paths) as they were in its parent
 * (removed when the parent lacks them), then remove it whatever happens (a signal included: the folder is
 * removed, then the signal is raised again). The folder is a repository of its own whose HEAD is the
 * commit (detached) and whose objects are the user's, read through alternates, never written: git run
 * inside it sees the commit, its history, and the set-aside files as changes. `commit` is a revision, or
 * a full sha taken as the commit it names (as git printed it to the caller). Ignored top-level entries
 * of the repository (node_modules, virtual environments) are linked in, so the test command finds its
 * dependencies, and are excluded in the copy; `skip` names entries that must not be (the state folder), and
 * build caches keyed on paths or mtimes (UNSHARED_BUILD_CACHES: cargo's `target/`) never are. A dependency folder
 * (node_modules) is a folder of links to its entries, so what a test run adds there (vite's `.vite-temp`) stays in
 * the copy; while `work` runs, scratchReads(dir) says what the copy's links and objects lead to.
 */
export async function withScratchTree<T>(repo: string, commit: string, skip: readonly string[], work: (dir: string) => Promise<T>, setAside: readonly string[] = []): Promise<T> {
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
    gitStdout(repo, ['--work-tree', dir, 'read-tree', '-u', '--reset', commit], env);
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

// The files as in the commit's parent, in one checkout: --no-overlay removes those the parent lacks. A
// path the commit's tree lacks is set aside already (and would fail the checkout's pathspec).
function setAsideFiles(repo: string, dir: string, commit: string, paths: readonly string[], env: NodeJS.ProcessEnv): void {
  const files = paths.filter((path) => lstatSync(join(dir, path), { throwIfNoEntry: false }) !== undefined);
  if (files.length === 0) return;
  const checkout = (from: string) => gitStdout(repo, ['--work-tree', dir, 'checkout', '--no-overlay', '-q', from, '--', ...files], env);
  try {
    checkout(`${commit}^`);
  } catch (error) {
    // A root commit has no parent: every file is new, so each one goes.
    try {
      gitStdout(repo, ['rev-parse', '--verify', '-q', `${commit}^`]);
    } catch {
      checkout(EMPTY_TREE);
      return;
    }
    throw error;
  }
}

// The smallest repository git accepts (HEAD, config, objects, refs), its HEAD the commit's sha, its objects
// the user's (alternates): one rev-parse, which also resolves `commit` and finds the objects of a linked
// worktree's repository; none for a full sha (a caller that has it read it from git) in a repository whose
// `.git` folder is its own (no linked worktree, no GIT_DIR). The user's repository is only read.
function makeCopyRepository(repo: string, dir: string, commit: string): { gitDir: string; objects: string } {
  const own = FULL_SHA.test(commit) ? ownGitDir(repo) : null;
  const [common, sha] =
    own !== null
      ? [own, commit]
      : gitStdout(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir', `${commit}^{commit}`])
          .trim()
          .split('\n');
  const gitDir = join(dir, '.git');
  // No refs/heads, refs/tags or info: git needs HEAD, objects and refs to see a repository, and makes the rest
  // when something is written there (each folder is one more to make and remove: 0.1 to 0.6 ms here).
  mkdirSync(join(gitDir, 'objects', 'info'), { recursive: true });
  mkdirSync(join(gitDir, 'refs'));
  writeFileSync(join(gitDir, 'HEAD'), `${sha}\n`);
  writeFileSync(join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  const objects = join(common ?? '', 'objects');
  writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${objects}\n`);
  return { gitDir, objects };
}

const FULL_SHA = /^[0-9a-f]{40}$/;

// `repo/.git` when it is the repository's own folder of objects (not a linked worktree's `.git` file or folder
// with a `commondir`) and no GIT_* variable points git elsewhere; null when only git can say.
function ownGitDir(repo: string): string | null {
  if (process.env.GIT_DIR !== undefined || process.env.GIT_COMMON_DIR !== undefined || process.env.GIT_OBJECT_DIRECTORY !== undefined) return null;
  const gitDir = resolve(repo, '.git');
  const is = (path: string) => lstatSync(path, { throwIfNoEntry: false });
  if (is(gitDir)?.isDirectory() !== true || is(join(gitDir, 'objects'))?.isDirectory() !== true || is(join(gitDir, 'commondir')) !== undefined) return null;
  return gitDir;
}

/**
 * Ignored top-level entries that are build caches keyed on paths or mtimes, never linked into a copy: a build
 * there would be recorded against the user's tree (cargo's `target/` fingerprints sources by paths relative to
 * the package and by mtimes, so the user's next `cargo test` would reuse a binary built from the copy).
 * Dependency folders (node_modules, virtual environments, deps/, vendor/) are linked; these are rebuilt.
 */
export const UNSHARED_BUILD_CACHES: readonly string[] = [
  'target',
  'build',
  '_build',
  'obj',
  'dist-newstyle',
  '.build',
  '.gradle',
  '.stack-work',
  '.zig-cache',
  'zig-cache',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.nx',
  'CMakeFiles',
  'coverage',
  '.nyc_output',
];

function isUnsharedCache(name: string): boolean {
  return UNSHARED_BUILD_CACHES.includes(name) || name.endsWith('.tsbuildinfo') || name.startsWith('cmake-build-');
}

/** The scratch trees alive, and what of the user's a suite run in each reads. */
const scratches = new Map<string, ScratchReads>();

/** The user's places a scratch tree's links and objects lead to, and its dependency folders' layers over theirs. */
export type ScratchReads = Required<Pick<SandboxSpec, 'read' | 'layers'>>;

/**
 * What a suite run in the scratch tree `dir` reads of the user's, or undefined when `dir` is none: the sandbox
 * binds it, since /tmp is private inside, and lays each dependency folder over the user's as a reader's is.
 */
export function scratchReads(dir: string): ScratchReads | undefined {
  return scratches.get(dir);
}

// Each ignored entry linked to where it really lies; a dependency folder a folder of links to its entries. What
// lies out of the repository (such as a link planted in the tree) is not read.
function linkIgnoredEntries(repo: string, dir: string, skip: readonly string[], gitDir: string): ScratchReads {
  const ignored = splitNul(gitStdout(repo, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory']));
  const root = hostView.realpath(repo) ?? repo;
  const linked: string[] = [];
  const reads: ScratchReads = { read: [], layers: [] };
  for (const entry of ignored) {
    const name = entry.replace(/\/$/, '');
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
  writeFileSync(join(gitDir, 'info', 'exclude'), linked.map((name) => `/${name.replace(/([\\*?[!#])/g, '\\$1')}\n`).join(''));
  return reads;
}

/** `dir` as a folder of links to each entry of `target` but the caches tools write there (for a run unsandboxed). */
function linkEntries(target: string, dir: string): void {
  mkdirSync(dir);
  for (const entry of layerEntries(target, hostView)) {
    const path = join(dir, entry.path);
    if (entry.kind === 'dir') mkdirSync(path);
    else symlinkSync(entry.target ?? join(target, entry.path), path);
  }
}

/** The top-level name of `path` inside `repo`, or null when it lies outside (for `skip`). */
export function topLevelName(repo: string, path: string): string | null {
  const rel = relative(repo, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith('/')) return null;
  return rel.split('/')[0] as string;
}

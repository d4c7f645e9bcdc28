// The bwrap command line of a sandboxed leaf (CONTRACT section 13): a pure function of the spec and an FsView.
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { onceView } from './once-view.js';
import { DEPENDENCY_CACHES, homeOps, inside, layerOps, PRIVATE_DIRS } from './sandbox-home.js';

export type SandboxRole = 'writer' | 'reader';

/** What a leaf may reach. Every path is absolute (relative ones are taken from `cwd`). */
export interface SandboxSpec {
  role: SandboxRole;
  /** The working tree or ball worktree: read-write for a writer; for a reader, a copy is bound at this path. */
  tree: string;
  /** A writer's copy of the tree, made here and bound at its path, its changes put back at the end (apart.ts). */
  apart?: string;
  cwd?: string;
  /** The home folder (default: HOME of the environment). Read-only, credential places absent. */
  home?: string;
  /** The leaf's own agent CLI's folders and files (relative to home, or absolute): read-write. */
  agentPaths?: string[];
  /** Extra paths bound read-only / read-write (an agents-file entry's `paths`). */
  read?: string[];
  write?: string[];
  /** Throwaway layers (sandbox-home.ts) at `dir` over the entries of `over` (ground truth's copy's node_modules). */
  layers?: { dir: string; over: string }[];
  /** Network on (default) or off: off is a network namespace of its own with loopback only. */
  network?: boolean;
  /** Variables passed besides the allow-list: names, or prefixes ending in `*` (`ANTHROPIC_*`). */
  passEnv?: string[];
  /** Variables set inside (an agents-file entry's `env`). */
  env?: Record<string, string>;
  /** The user's whole environment instead of the allow-list (the toolchain's own suite runs). */
  inheritEnv?: boolean;
  /** HOME_CACHES (`~/.cache`): the user's own, read-write (default for a writer), or a throwaway layer (a reader's). */
  homeCaches?: 'own' | 'throwaway';
  /** State folder names, absent inside (default `.tdd`, `.leap`). */
  stateDirs?: string[];
  /** Folders a reader's copy links read-only instead of copying, at any depth (default node_modules, .venv, venv). */
  linkReadOnly?: string[];
  /** More folders made empty and read-only inside (the supervisor's state folder when it lies elsewhere). */
  hide?: string[];
  /** Files or folders that must stay readable even inside a hidden place (the agent's executable, argv files). */
  keepReadable?: string[];
}

export interface FsView {
  list(dir: string): FsEntry[] | null;
  /** What `path` is (symlinks are reported as such, not followed), or null when absent. */
  kind(path: string): 'dir' | 'file' | 'symlink' | null;
  realpath(path: string): string | null;
  readText(path: string): string | null;
}

export type FsEntry = { name: string; kind: 'dir' | 'file' | 'symlink'; target?: string };

export const DEFAULT_STATE_DIRS: readonly string[] = ['.tdd', '.leap'];
export const DEFAULT_LINK_READ_ONLY: readonly string[] = ['node_modules', '.venv', 'venv'];

type BindOp = { op: 'ro-bind' | 'bind'; src: string; dest: string };
type DestOp = { op: 'tmpfs' | 'remount-ro' | 'dev' | 'proc' | 'dir'; dest: string };
export type MountOp = BindOp | DestOp | { op: 'symlink'; target: string; dest: string };

/** The repository root a worktree's `.git` file points to (`gitdir:` then `commondir`), or null. */
export function mainRepoRoot(tree: string, view: FsView): string | null {
  const text = view.readText(join(tree, '.git'));
  const match = text === null ? null : /^gitdir: (.+)$/m.exec(text);
  if (match === null) return null;
  const gitdir = resolve(tree, (match[1] as string).trim());
  const common = view.readText(join(gitdir, 'commondir'));
  const commonDir = common === null ? gitdir : resolve(gitdir, common.trim());
  return commonDir.endsWith(`${sep}.git`) ? dirname(commonDir) : null;
}

/** A path bound read-write inside a masked folder: `src` (the reader's copy, or the path itself) at `dest`. */
type Keep = { src: string; dest: string };

export type Plan = ReturnType<typeof startPlan>;

/** The tree's rules on top of its bind: `.git` read-only, state folders absent (empty and read-only). */
function treeRules(plan: Plan, root: string, keep: Keep[]): void {
  gitReadOnly(root, plan.view, plan.ops);
  for (const name of plan.stateDirs) maskFolder(plan, join(root, name), keep);
}

function gitReadOnly(root: string, view: FsView, ops: MountOp[]): void {
  const git = join(root, '.git');
  const gitKind = view.kind(git);
  if (gitKind === 'dir' || gitKind === 'file') ops.push({ op: 'ro-bind', src: git, dest: git });
}

/** Empty and read-only inside, but for the paths of `keep` below it, bound read-write at their own paths. */
function maskFolder({ view, ops, readable }: Plan, dir: string, keep: Keep[]): void {
  if (view.kind(dir) !== 'dir' || ops.some((o) => o.op === 'tmpfs' && o.dest === dir)) return;
  ops.push({ op: 'tmpfs', dest: dir });
  for (const k of keep) if (k.dest !== dir && inside(k.dest, dir)) ops.push({ op: 'bind', src: k.src, dest: k.dest });
  // A file the leaf's own command line names (a prompt file) stays readable, and only it.
  const named = readable.filter((r) => r !== dir && inside(r, dir));
  bindExisting(named, view, ops, 'ro-bind');
  ops.push({ op: 'remount-ro', dest: dir });
}

function bindExisting(paths: string[], view: FsView, ops: MountOp[], op: 'bind' | 'ro-bind' = 'bind'): void {
  for (const p of paths) if (view.kind(p) !== null) ops.push({ op, src: p, dest: p });
}

export interface PlanOptions {
  /** The reader's copy of the tree (made by prepareSandbox), bound at the tree's path. */
  copy?: string;
  /** The folders the copy left out to bind read-only from the tree (node_modules...). */
  linked?: string[];
  /** A writer's copy's: bound read-write from the tree (its ignored entries). */
  own?: string[];
  /** bwrap's --json-status-fd: where it reports the leaf's start and exit code (the supervisor reads it). */
  statusFd?: number;
}

export class SandboxSpecError extends Error {}

export function planMounts(spec: SandboxSpec, given: FsView, options: PlanOptions = {}): MountOp[] {
  const plan = startPlan(spec, onceView(given), options);
  const { view, ops, tree, home } = plan;
  ops.push({ op: 'ro-bind', src: '/', dest: '/' }, { op: 'dev', dest: '/dev' }, { op: 'proc', dest: '/proc' });
  for (const dir of PRIVATE_DIRS) ops.push({ op: 'tmpfs', dest: dir });
  outerOps(plan);
  if (home !== null && view.kind(home) === 'dir') homeOps(plan, home);
  // The tree: the writer's own or the reader's copy at its path, each dependency folder a layer (`.git` below).
  if (options.copy !== undefined) ops.push({ op: 'bind', src: options.copy, dest: tree });
  else if (outsideHome(tree, home)) ops.push({ op: 'bind', src: tree, dest: tree });
  bindExisting(options.own ?? [], view, ops);
  const layers = [...(spec.layers ?? []), ...(options.linked ?? []).map((p) => ({ dir: p, over: p }))];
  for (const { dir, over } of layers) layerOps(dir, over, view, DEPENDENCY_CACHES, ops);
  // A reader's own agent folder below the tree (a scripted agent's claims) is the real one, over the copy.
  const below = agentOutside(spec).filter((p) => p !== tree && inside(p, tree) && !inState(plan, p));
  if (options.copy !== undefined) bindExisting(below, view, ops);
  repositoryRules(plan);
  return ops;
}

/** The spec checked (absolute paths, a tree without home, a reader's copy) and made a plan of no mounts yet. */
function startPlan(spec: SandboxSpec, view: FsView, options: PlanOptions) {
  for (const [what, path] of Object.entries({ tree: spec.tree, home: spec.home, cwd: spec.cwd })) {
    if (path === undefined || isAbsolute(path)) continue;
    throw new SandboxSpecError(`the sandbox's ${what} must be an absolute path, got ${JSON.stringify(path)}`);
  }
  const tree = resolve(spec.tree);
  const home = spec.home === undefined || spec.home === '' ? null : resolve(spec.home);
  if (tree === '/' || (home !== null && inside(home, tree))) {
    const folder = `the home folder${home === null ? '' : ` ${JSON.stringify(home)}`}`;
    throw new SandboxSpecError(`the tree ${JSON.stringify(tree)} holds ${folder}: a sandbox cannot give it to a leaf`);
  }
  if (spec.role === 'reader' && options.copy === undefined) {
    throw new SandboxSpecError('a reader sandbox needs its copy of the tree (prepareSandbox makes it)');
  }
  const abs = (p: string): string => (home !== null && !isAbsolute(p) ? join(home, p) : resolve(p));
  // Declared paths in the tree change nothing: the tree's own rules for the role apply there.
  const read = (spec.read ?? []).map(abs).filter((p) => !inside(p, tree));
  const write = (spec.write ?? []).map(abs).filter((p) => !inside(p, tree));
  const readable = (spec.keepReadable ?? []).map((p) => resolve(p));
  const stateDirs = spec.stateDirs ?? DEFAULT_STATE_DIRS;
  return { spec, options, view, ops: [] as MountOp[], tree, home, stateDirs, read, write, readable };
}

const outsideHome = (p: string, home: string | null): boolean => home === null || !inside(p, home);
const inState = (plan: Plan, p: string): boolean => plan.stateDirs.some((d) => inside(p, join(plan.tree, d)));

const agentOutside = (spec: SandboxSpec): string[] => (spec.agentPaths ?? []).filter(isAbsolute).map((p) => resolve(p));

/** What lies outside home and the tree, before them: named files in the private /tmp, declared paths, outer first. */
function outerOps({ spec, view, ops, tree, home, read, write, readable }: Plan): void {
  // A file the command line names in the host's /tmp stays readable in the private one, alone (declared paths next).
  for (const r of readable) {
    const hidden = PRIVATE_DIRS.some((d) => r !== d && inside(r, d)) && !inside(r, tree);
    if (hidden && view.kind(r) === 'file') ops.push({ op: 'ro-bind', src: r, dest: r });
  }
  const rw = [...write, ...agentOutside(spec)];
  const binds = [...read.map((p) => [p, 'ro-bind'] as const), ...rw.map((p) => [p, 'bind'] as const)];
  const depth = (p: string): number => p.split(sep).length;
  for (const [p, op] of binds.sort(([a], [b]) => depth(a) - depth(b))) {
    if (outsideHome(p, home) && view.kind(p) !== null) ops.push({ op, src: p, dest: p });
  }
}

/** Repositories keep `.git` read-only and state folders absent; a ball's worktree inside one is bound on its own. */
function repositoryRules(plan: Plan): void {
  const { spec, options, view, tree, stateDirs, readable } = plan;
  const self: Keep[] = [{ src: options.copy ?? tree, dest: tree }];
  for (const p of [...plan.read, ...plan.write]) if (view.kind(join(p, '.git')) !== null) treeRules(plan, p, self);
  const main = mainRepoRoot(tree, view);
  if (main !== null && main !== tree) treeRules(plan, main, self);
  for (let up = dirname(tree); up !== dirname(up); up = dirname(up)) {
    if (stateDirs.includes(up.slice(up.lastIndexOf(sep) + 1))) maskFolder(plan, up, self);
  }
  for (const p of spec.hide ?? []) {
    // A reader's copy has no state folder to mask: it was never copied.
    if (spec.role === 'writer' || !inside(resolve(p), tree)) maskFolder(plan, resolve(p), self);
  }
  if (spec.role === 'writer') treeRules(plan, tree, []);
  else {
    gitReadOnly(tree, view, plan.ops);
    // The copy has no state folder; a file of it that the command line names is bound alone.
    const named = readable.filter((r) => inState(plan, r));
    bindExisting(named, view, plan.ops, 'ro-bind');
  }
}

export function bwrapArgs(spec: SandboxSpec, view: FsView, options: PlanOptions = {}): string[] {
  const argv: string[] = [];
  for (const op of planMounts(spec, view, options)) {
    if (op.op === 'symlink') argv.push('--symlink', op.target, op.dest);
    else if ('src' in op) argv.push(`--${op.op}`, op.src, op.dest);
    else argv.push(`--${op.op}`, op.dest);
  }
  argv.push('--unshare-pid', '--unshare-ipc', '--unshare-uts');
  if (spec.network === false) argv.push('--unshare-net');
  // As root, bwrap keeps every capability unless told: a leaf could then remount its tree read-write.
  argv.push('--die-with-parent', '--cap-drop', 'ALL', '--chdir', resolve(spec.cwd ?? spec.tree));
  if (options.statusFd !== undefined) argv.push('--json-status-fd', String(options.statusFd));
  return argv;
}

export function sandboxArgv(
  bwrap: string,
  spec: SandboxSpec,
  view: FsView,
  command: string,
  args: readonly string[],
  options: PlanOptions = {},
): string[] {
  return [bwrap, ...bwrapArgs(spec, view, options), '--', command, ...args];
}

const LOCALE = /^LC_[A-Z_]+$/;
const BASE_NAMES = new Set([
  ...'PATH HOME USER LOGNAME SHELL TERM COLORTERM NO_COLOR FORCE_COLOR LANG LANGUAGE TZ'.split(' '),
  ...['BASH_DEFAULT_TIMEOUT_MS', 'BASH_MAX_TIMEOUT_MS'],
]);

function allowed(name: string, pass: readonly string[]): boolean {
  if (BASE_NAMES.has(name) || name.startsWith('VERI_') || name.startsWith('LEAP_') || LOCALE.test(name)) return true;
  return pass.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** The allow-list plus `passEnv`, then `env` (or all: `inheritEnv`); no TMPDIR: the sandbox's /tmp is its own. */
export function sandboxEnv(env: NodeJS.ProcessEnv, spec: Pick<SandboxSpec, 'passEnv' | 'env' | 'inheritEnv'>) {
  const pass = spec.passEnv ?? [];
  const kept = Object.entries(env).filter(
    ([name, value]) => value !== undefined && name !== 'TMPDIR' && (spec.inheritEnv === true || allowed(name, pass)),
  );
  return { ...Object.fromEntries(kept), ...spec.env };
}

// The bwrap command line of a sandboxed leaf (CONTRACT section 13): a pure function of the spec and an FsView.
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEPENDENCY_CACHES, HOME_CACHES, layerOps } from './sandbox-layer.js';

/** Writers may write their tree; readers work in a throwaway copy of it. */
export type SandboxRole = 'writer' | 'reader';

/** What a leaf may reach. Every path is absolute (relative ones are taken from `cwd`). */
export interface SandboxSpec {
  role: SandboxRole;
  /** The working tree or ball worktree: read-write for a writer; for a reader, a copy is bound at this path. */
  tree: string;
  /** A writer's copy of the tree, made here and bound at its path, its changes put back at the end (apart.ts). */
  apart?: string;
  /** The leaf's working directory inside (default: the tree). */
  cwd?: string;
  /** The home folder (default: HOME of the environment). Read-only, credential places absent. */
  home?: string;
  /** The leaf's own agent CLI's folders and files (relative to home, or absolute): read-write. */
  agentPaths?: string[];
  /** Extra paths bound read-only / read-write (an agents-file entry's `paths`). */
  read?: string[];
  write?: string[];
  /** Throwaway layers (sandbox-layer.ts) at `dir` over the entries of `over` (ground truth's copy's node_modules). */
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
  /** `dir`'s entries, or null when it is not a readable folder. */
  list(dir: string): FsEntry[] | null;
  /** What `path` is (symlinks are reported as such, not followed), or null when absent. */
  kind(path: string): 'dir' | 'file' | 'symlink' | null;
  realpath(path: string): string | null;
  /** A small text file (a `.git` file, `commondir`), or null. */
  readText(path: string): string | null;
}

export interface FsEntry {
  name: string;
  kind: 'dir' | 'file' | 'symlink';
  /** A symlink's target, as written. */
  target?: string;
}

/** Places under home that hold credentials: absent inside every sandbox. */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.config/gh',
  '.netrc',
  '.npmrc',
  '.docker',
  '.kube',
  '.git-credentials',
  '.config/git/credentials',
  '.config/hub',
  '.config/gcloud',
  '.azure',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.password-store',
  '.local/share/keyrings',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.yarnrc.yml',
  '.config/op',
  '.m2/settings.xml',
];

/** Every agent CLI's folders and files under home: absent unless named as the leaf's own agent's. */
export const AGENT_CLI_PATHS: readonly string[] = [
  '.claude',
  '.claude.json',
  '.claude.json.backup',
  '.config/claude',
  '.codex',
  '.gemini',
  '.qwen',
  '.cursor',
  '.aider',
  '.config/opencode',
  '.local/share/opencode',
  '.config/github-copilot',
  '.copilot',
  '.continue',
  '.config/amp',
  '.local/share/amp',
  '.config/goose',
  '.local/share/goose',
  '.crush',
  '.config/crush',
];

export const DEFAULT_STATE_DIRS: readonly string[] = ['.tdd', '.leap'];
/** Folders private to each leaf (an empty tmpfs inside). */
const PRIVATE_DIRS: readonly string[] = ['/tmp', '/var/tmp'];
export const DEFAULT_LINK_READ_ONLY: readonly string[] = ['node_modules', '.venv', 'venv'];

/** One mount (or namespace-building) operation, in bwrap's order. */
type BindOp = { op: 'ro-bind' | 'bind'; src: string; dest: string };
type DestOp = { op: 'tmpfs' | 'remount-ro' | 'dev' | 'proc' | 'dir'; dest: string };
export type MountOp = BindOp | DestOp | { op: 'symlink'; target: string; dest: string };

/** What a place in home is inside: absent, read-only, read-write, or a throwaway layer over it. */
type Rule = 'hide' | 'ro' | 'rw' | 'layer';
interface Node {
  rule?: Rule;
  children: Map<string, Node>;
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function addRule(root: Node, rel: string, rule: Rule): void {
  let node = root;
  for (const part of rel.split('/').filter((p) => p !== '' && p !== '.')) {
    let next = node.children.get(part);
    if (next === undefined) {
      next = { children: new Map() };
      node.children.set(part, next);
    }
    node = next;
  }
  // A later rule for the same place wins: the leaf's own agent folder over the list of every agent's.
  node.rule = rule;
}

// Rules for places the host does not have change nothing: dropped, so a home without credentials is one bind.
function prune(node: Node, path: string, view: FsView): boolean {
  for (const [name, child] of node.children) if (!prune(child, join(path, name), view)) node.children.delete(name);
  return node.children.size > 0 || (node.rule !== undefined && view.kind(path) !== null);
}

function hasHide(node: Node): boolean {
  for (const child of node.children.values()) if (child.rule === 'hide' || hasHide(child)) return true;
  return false;
}

/** A plain bind when nothing below `dir` is hidden, else a tmpfs of its entries not hidden, read-only once filled. */
function layout(dir: string, node: Node, rule: Rule, view: FsView, ops: MountOp[], boundAbove: Rule): void {
  if (node.rule === 'layer') {
    layerOps(dir, dir, view, [], ops);
    const through = [...node.children].filter(([, c]) => c.rule === 'rw').map(([name]) => join(dir, name));
    for (const p of through) if (view.kind(p) !== null) ops.push({ op: 'bind', src: p, dest: p });
    return;
  }
  const own = node.rule ?? rule;
  if (own !== 'hide' && !hasHide(node)) {
    if (own !== boundAbove && view.kind(dir) !== null) ops.push({ op: own === 'rw' ? 'bind' : 'ro-bind', src: dir, dest: dir });
    // Rules below a plain bind are binds on top of it (their mount points exist: they are the host's).
    for (const [name, child] of node.children) layout(join(dir, name), child, own, view, ops, own);
    return;
  }
  if (own === 'hide' && ![...node.children.values()].some((c) => c.rule !== undefined || c.children.size > 0)) return;
  const entries = view.list(dir);
  if (entries === null) return;
  ops.push({ op: 'tmpfs', dest: dir });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const child: Node = node.children.get(entry.name) ?? { children: new Map() };
    const childRule = child.rule ?? own;
    if (entry.kind === 'symlink' && childRule !== 'hide' && child.children.size === 0) {
      ops.push({ op: 'symlink', target: entry.target ?? '', dest: path });
      continue;
    }
    if (entry.kind !== 'dir' && child.children.size > 0) continue; // rules below a file: nothing to do
    layout(path, child, own, view, ops, 'hide');
  }
  if (own !== 'rw') ops.push({ op: 'remount-ro', dest: dir });
}

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
interface Keep {
  src: string;
  dest: string;
}

/** The tree's rules on top of its bind: `.git` read-only, state folders absent (empty and read-only). */
function treeRules(root: string, view: FsView, stateDirs: readonly string[], keep: Keep[], ops: MountOp[], readable: readonly string[]): void {
  const git = join(root, '.git');
  const gitKind = view.kind(git);
  if (gitKind === 'dir' || gitKind === 'file') ops.push({ op: 'ro-bind', src: git, dest: git });
  for (const name of stateDirs) maskFolder(join(root, name), view, keep, ops, readable);
}

/** Empty and read-only inside, but for the paths of `keep` below it, bound read-write at their own paths. */
function maskFolder(dir: string, view: FsView, keep: Keep[], ops: MountOp[], readable: readonly string[] = []): void {
  if (view.kind(dir) !== 'dir' || ops.some((o) => o.op === 'tmpfs' && o.dest === dir)) return;
  ops.push({ op: 'tmpfs', dest: dir });
  for (const k of keep) if (k.dest !== dir && inside(k.dest, dir)) ops.push({ op: 'bind', src: k.src, dest: k.dest });
  // A file the leaf's own command line names (a prompt file) stays readable, and only it.
  for (const r of readable) if (r !== dir && inside(r, dir) && view.kind(r) !== null) ops.push({ op: 'ro-bind', src: r, dest: r });
  ops.push({ op: 'remount-ro', dest: dir });
}

/** A plan's input once the host has been looked at: where a reader's copy lives. */
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

/** Why a spec cannot be sandboxed (a tree that holds the home folder, a relative path). */
export class SandboxSpecError extends Error {}

/** `view` answering each question once, from listings where it can (docs/decisions/sandbox-cost.md). */
function onceView(view: FsView): FsView {
  const memo = <T>(ask: (path: string) => T): ((path: string) => T) => {
    const known = new Map<string, T>();
    return (path) => {
      if (known.has(path)) return known.get(path) as T;
      const answer = ask(path);
      known.set(path, answer);
      return answer;
    };
  };
  const listed = new Map<string, Map<string, FsEntry['kind']> | null>();
  const list = (dir: string): FsEntry[] | null => {
    const entries = view.list(dir);
    listed.set(dir, entries === null ? null : new Map(entries.map((e) => [e.name, e.kind])));
    return entries;
  };
  type Kind = ReturnType<FsView['kind']>;
  // What the listings and earlier answers already say of `path`, or undefined when only the file system can tell.
  const answered = new Map<string, Kind>();
  const said = (path: string): Kind | undefined => {
    if (answered.has(path)) return answered.get(path);
    const parent = dirname(path);
    if (parent === path) return undefined;
    const entries = listed.get(parent);
    if (entries !== undefined && entries !== null) return entries.get(basename(path)) ?? null;
    const above = said(parent);
    // Below an absent place or a file there is nothing; below a folder or a symlink only the file system knows.
    return above === null || above === 'file' ? null : undefined;
  };
  const kind = (path: string): Kind => {
    let answer = said(path);
    if (answer === undefined) answer = view.kind(path);
    answered.set(path, answer);
    return answer;
  };
  return { list: memo(list), kind, realpath: memo((p) => view.realpath(p)), readText: memo((p) => view.readText(p)) };
}

/** The mounts of a sandbox, in order. */
export function planMounts(spec: SandboxSpec, given: FsView, options: PlanOptions = {}): MountOp[] {
  const view = onceView(given);
  for (const [what, path] of [
    ['tree', spec.tree],
    ['home', spec.home],
    ['cwd', spec.cwd],
  ] as const) {
    if (path !== undefined && !isAbsolute(path)) throw new SandboxSpecError(`the sandbox's ${what} must be an absolute path, got ${JSON.stringify(path)}`);
  }
  const tree = resolve(spec.tree);
  const home = spec.home === undefined || spec.home === '' ? null : resolve(spec.home);
  if (tree === '/' || (home !== null && inside(home, tree))) {
    throw new SandboxSpecError(`the tree ${JSON.stringify(tree)} holds the home folder${home === null ? '' : ` ${JSON.stringify(home)}`}: a sandbox cannot give it to a leaf`);
  }
  if (spec.role === 'reader' && options.copy === undefined) throw new SandboxSpecError('a reader sandbox needs its copy of the tree (prepareSandbox makes it)');
  const stateDirs = spec.stateDirs ?? DEFAULT_STATE_DIRS;
  const abs = (p: string): string => (home !== null && !isAbsolute(p) ? join(home, p) : resolve(p));
  // Declared paths in the tree change nothing: the tree's own rules for the role apply there.
  const read = (spec.read ?? []).map(abs).filter((p) => !inside(p, tree));
  const write = (spec.write ?? []).map(abs).filter((p) => !inside(p, tree));
  const ops: MountOp[] = [
    { op: 'ro-bind', src: '/', dest: '/' },
    { op: 'dev', dest: '/dev' },
    { op: 'proc', dest: '/proc' },
    { op: 'tmpfs', dest: '/tmp' },
    { op: 'tmpfs', dest: '/var/tmp' },
  ];
  const outsideHome = (p: string): boolean => home === null || !inside(p, home);
  // A file the command line names in the host's /tmp stays readable in the private one, alone (declared paths next).
  for (const p of spec.keepReadable ?? []) {
    const r = resolve(p);
    const hidden = PRIVATE_DIRS.some((d) => r !== d && inside(r, d)) && !inside(r, tree);
    if (hidden && view.kind(r) === 'file') ops.push({ op: 'ro-bind', src: r, dest: r });
  }
  // Declared paths and the leaf's own agent folder outside home, read-write, outer first, before home and the tree.
  const agentOutside = (spec.agentPaths ?? []).filter((p) => isAbsolute(p)).map((p) => resolve(p));
  const rw = [...write, ...agentOutside];
  // A reader's own agent folder below the tree (a scripted agent's claims) is the real one, over the copy.
  const ownBelow = options.copy !== undefined ? agentOutside.filter((p) => p !== tree && inside(p, tree) && !stateDirs.some((d) => inside(p, join(tree, d)))) : [];
  const binds = [...read.map((p) => [p, 'ro-bind'] as const), ...rw.map((p) => [p, 'bind'] as const)];
  const depth = (p: string): number => p.split(sep).length;
  for (const [p, op] of binds.sort(([a], [b]) => depth(a) - depth(b))) {
    if (outsideHome(p) && view.kind(p) !== null) ops.push({ op, src: p, dest: p });
  }
  // Home: read-only; credential places and other agents' folders absent; the leaf's own agent's read-write.
  if (home !== null && view.kind(home) === 'dir') {
    // Listed once, first: most places the plan asks about are home's entries (onceView answers them from it).
    view.list(home);
    const root: Node = { children: new Map() };
    const relHome = (p: string): string | null => {
      const full = abs(p);
      return inside(full, home) ? relative(home, full) : null;
    };
    const hidden = [...CREDENTIAL_PATHS, ...AGENT_CLI_PATHS];
    for (const p of hidden) addRule(root, p, 'hide');
    for (const p of spec.keepReadable ?? []) {
      // Only where it would be hidden: elsewhere it is readable already (and a writer's file must stay writable).
      const rel = relHome(p);
      if (rel !== null && rel !== '' && hidden.some((h) => rel === h || rel.startsWith(`${h}/`))) addRule(root, rel, 'ro');
    }
    const caches = spec.homeCaches ?? (spec.role === 'writer' ? 'own' : 'throwaway');
    for (const p of HOME_CACHES) addRule(root, p, caches === 'own' ? 'rw' : 'layer');
    if (caches !== 'own') addRule(root, '.cache/go-build', 'rw'); // Go's cache writes on each miss: read-only, it fails
    for (const p of [...(spec.agentPaths ?? []), ...write]) {
      const rel = relHome(p);
      if (rel !== null && rel !== '') addRule(root, rel, 'rw');
    }
    for (const p of read) {
      const rel = relHome(p);
      if (rel !== null && rel !== '') addRule(root, rel, 'ro');
    }
    if (spec.role === 'writer' && inside(tree, home)) addRule(root, relative(home, tree), 'rw');
    prune(root, home, view);
    // A home in /tmp (a test's) is not under the root's bind once /tmp is private: bound of its own.
    layout(home, root, 'ro', view, ops, PRIVATE_DIRS.some((d) => inside(home, d)) ? 'hide' : 'ro');
    // A credential place that is a symlink: what it points to is emptied too, wherever it lies.
    for (const p of CREDENTIAL_PATHS) {
      const place = join(home, p);
      if (view.kind(place) !== 'symlink') continue;
      const target = view.realpath(place);
      if (target === null || inside(target, home)) continue;
      const kind = view.kind(target);
      if (kind === 'dir') ops.push({ op: 'tmpfs', dest: target }, { op: 'remount-ro', dest: target });
      else if (kind === 'file') ops.push({ op: 'ro-bind', src: '/dev/null', dest: target });
    }
  }
  // The tree: the writer's own or the reader's copy at its path, each dependency folder a layer (`.git` below).
  if (options.copy !== undefined) ops.push({ op: 'bind', src: options.copy, dest: tree });
  else if (outsideHome(tree)) ops.push({ op: 'bind', src: tree, dest: tree });
  for (const p of options.own ?? []) if (view.kind(p) !== null) ops.push({ op: 'bind', src: p, dest: p });
  const layers = [...(spec.layers ?? []), ...(options.linked ?? []).map((p) => ({ dir: p, over: p }))];
  for (const { dir, over } of layers) layerOps(dir, over, view, DEPENDENCY_CACHES, ops);
  for (const p of ownBelow) if (view.kind(p) !== null) ops.push({ op: 'bind', src: p, dest: p });
  // Repositories keep `.git` read-only and state folders absent; a ball's worktree inside one is bound on its own.
  const readable = (spec.keepReadable ?? []).map((p) => resolve(p));
  const self: Keep[] = [{ src: options.copy ?? tree, dest: tree }];
  for (const p of [...read, ...write]) {
    if (view.kind(join(p, '.git')) !== null) treeRules(p, view, stateDirs, self, ops, readable);
  }
  const main = mainRepoRoot(tree, view);
  if (main !== null && main !== tree) treeRules(main, view, stateDirs, self, ops, readable);
  for (let up = dirname(tree); up !== dirname(up); up = dirname(up)) {
    if (stateDirs.includes(up.slice(up.lastIndexOf(sep) + 1))) maskFolder(up, view, self, ops, readable);
  }
  for (const p of spec.hide ?? []) {
    // A reader's copy has no state folder to mask: it was never copied.
    if (spec.role === 'writer' || !inside(resolve(p), tree)) maskFolder(resolve(p), view, self, ops, readable);
  }
  if (spec.role === 'writer') treeRules(tree, view, stateDirs, [], ops, readable);
  else {
    const git = join(tree, '.git');
    const gitKind = view.kind(git);
    if (gitKind === 'dir' || gitKind === 'file') ops.push({ op: 'ro-bind', src: git, dest: git });
    // The copy has no state folder; a file of it that the command line names is bound alone.
    for (const r of readable) {
      if (stateDirs.some((d) => inside(r, join(tree, d))) && view.kind(r) !== null) ops.push({ op: 'ro-bind', src: r, dest: r });
    }
  }
  return ops;
}

/** The bwrap arguments of a plan (what comes between `bwrap` and the leaf's command). */
export function bwrapArgs(spec: SandboxSpec, view: FsView, options: PlanOptions = {}): string[] {
  const argv: string[] = [];
  for (const op of planMounts(spec, view, options)) {
    switch (op.op) {
      case 'ro-bind':
      case 'bind':
        argv.push(`--${op.op}`, op.src, op.dest);
        break;
      case 'symlink':
        argv.push('--symlink', op.target, op.dest);
        break;
      default:
        argv.push(`--${op.op}`, op.dest);
    }
  }
  argv.push('--unshare-pid', '--unshare-ipc', '--unshare-uts');
  if (spec.network === false) argv.push('--unshare-net');
  // As root, bwrap keeps every capability unless told: a leaf could then remount its tree read-write.
  argv.push('--die-with-parent', '--cap-drop', 'ALL', '--chdir', resolve(spec.cwd ?? spec.tree));
  if (options.statusFd !== undefined) argv.push('--json-status-fd', String(options.statusFd));
  return argv;
}

/** The full command line: bwrap, its arguments, `--`, the leaf's command and arguments. */
export function sandboxArgv(bwrap: string, spec: SandboxSpec, view: FsView, command: string, args: readonly string[], options: PlanOptions = {}): string[] {
  return [bwrap, ...bwrapArgs(spec, view, options), '--', command, ...args];
}

const LOCALE = /^LC_[A-Z_]+$/;
const BASE_NAMES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR', 'BASH_DEFAULT_TIMEOUT_MS', 'BASH_MAX_TIMEOUT_MS', 'LANG', 'LANGUAGE', 'TZ']);

function allowed(name: string, pass: readonly string[]): boolean {
  if (BASE_NAMES.has(name) || name.startsWith('VERI_') || name.startsWith('LEAP_') || (name.startsWith('LC_') && LOCALE.test(name))) return true;
  return pass.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** The allow-list plus `passEnv`, then `env` (or all: `inheritEnv`); no TMPDIR: the sandbox's /tmp is its own. */
export function sandboxEnv(env: NodeJS.ProcessEnv, spec: Pick<SandboxSpec, 'passEnv' | 'env' | 'inheritEnv'>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const pass = spec.passEnv ?? [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name === 'TMPDIR') continue;
    if (spec.inheritEnv === true || allowed(name, pass)) out[name] = value;
  }
  return { ...out, ...(spec.env ?? {}) };
}

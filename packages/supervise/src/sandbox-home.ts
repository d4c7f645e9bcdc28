// Home inside a sandbox (CONTRACT section 13), and throwaway layers (bwrap 0.8 has no overlayfs).
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FsView, MountOp, Plan } from './sandbox-plan.js';

export const CREDENTIAL_PATHS: readonly string[] = (
  '.ssh .gnupg .aws .config/gh .netrc .npmrc .docker .kube .git-credentials .config/git/credentials ' +
  '.config/hub .config/gcloud .azure .pypirc .cargo/credentials .cargo/credentials.toml ' +
  '.gem/credentials .password-store .local/share/keyrings .vault-token ' +
  '.terraform.d/credentials.tfrc.json .yarnrc.yml .config/op .m2/settings.xml'
).split(' ');

/** Every agent CLI's folders and files under home: absent unless named as the leaf's own agent's. */
const AGENT_CLI_PATHS: readonly string[] = (
  '.claude .claude.json .claude.json.backup .config/claude .codex .gemini .qwen .cursor .aider ' +
  '.config/opencode .local/share/opencode .config/github-copilot .copilot .continue .config/amp ' +
  '.local/share/amp .config/goose .local/share/goose .crush .config/crush'
).split(' ');

export const PRIVATE_DIRS: readonly string[] = ['/tmp', '/var/tmp'];

type Rule = 'hide' | 'ro' | 'rw' | 'layer';
type Node = { rule?: Rule; children: Map<string, Node> };

/** `path` is `root` or below it, as written (no link is followed). */
export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function addRule(root: Node, rel: string, rule: Rule): void {
  let node = root;
  for (const part of rel.split('/').filter((p) => p !== '' && p !== '.')) {
    if (!node.children.has(part)) node.children.set(part, { children: new Map() });
    node = node.children.get(part) as Node;
  }
  // A later rule for the same place wins: the leaf's own agent folder over the list of every agent's.
  node.rule = rule;
}

// Rules for places the host does not have change nothing: dropped, so a home without credentials is one bind.
function prune(node: Node, path: string, view: FsView): boolean {
  for (const [name, child] of node.children) if (!prune(child, join(path, name), view)) node.children.delete(name);
  return node.children.size > 0 || (node.rule !== undefined && view.kind(path) !== null);
}

const hasHide = (node: Node): boolean => [...node.children.values()].some((c) => c.rule === 'hide' || hasHide(c));

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
    const op = own === 'rw' ? 'bind' : 'ro-bind';
    if (own !== boundAbove && view.kind(dir) !== null) ops.push({ op, src: dir, dest: dir });
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

/** Home's mounts: read-only; credential places and other agents' folders absent; the leaf's own agent's read-write. */
export function homeOps(plan: Plan, home: string): void {
  const { view, ops } = plan;
  // Listed once, first: most places the plan asks about are home's entries (onceView answers them from it).
  view.list(home);
  const root = homeRules(plan, home);
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

function homeRules({ spec, tree, read, write }: Plan, home: string): Node {
  const root: Node = { children: new Map() };
  // A path's place in home (relative paths are taken from it), or null when outside or home itself.
  const relHome = (p: string): string | null => {
    const full = isAbsolute(p) ? resolve(p) : join(home, p);
    return (inside(full, home) && relative(home, full)) || null;
  };
  const hidden = [...CREDENTIAL_PATHS, ...AGENT_CLI_PATHS];
  for (const p of hidden) addRule(root, p, 'hide');
  // Only where it would be hidden: elsewhere it is readable already (and a writer's file must stay writable).
  for (const rel of (spec.keepReadable ?? []).map(relHome)) {
    if (rel !== null && hidden.some((h) => rel === h || rel.startsWith(`${h}/`))) addRule(root, rel, 'ro');
  }
  const caches = spec.homeCaches ?? (spec.role === 'writer' ? 'own' : 'throwaway');
  for (const p of HOME_CACHES) addRule(root, p, caches === 'own' ? 'rw' : 'layer');
  if (caches !== 'own') addRule(root, '.cache/go-build', 'rw'); // Go's cache writes on each miss: read-only, it fails
  for (const rel of [...(spec.agentPaths ?? []), ...write].map(relHome)) if (rel !== null) addRule(root, rel, 'rw');
  for (const rel of read.map(relHome)) if (rel !== null) addRule(root, rel, 'ro');
  if (spec.role === 'writer' && inside(tree, home)) addRule(root, relative(home, tree), 'rw');
  return root;
}

/** Entries of a dependency folder tools write into (bundled configs, caches): left out of its layer, made afresh. */
export const DEPENDENCY_CACHES: readonly string[] = ['.cache', '.vite', '.vite-temp', '.vitest'];

/** Places in home a test run writes (Go's build cache, every tool that follows XDG): the writer's own, else a layer. */
export const HOME_CACHES: readonly string[] = ['.cache'];

export type LayerEntry = { path: string; kind: 'dir' | 'link'; target?: string };

/** A symlink keeps its own target and `@scope` is a folder of the layer, so relative links resolve as in `over`. */
export function layerEntries(over: string, view: FsView, skip: readonly string[] = DEPENDENCY_CACHES): LayerEntry[] {
  const out: LayerEntry[] = [];
  const walk = (rel: string): void => {
    for (const entry of view.list(rel === '' ? over : join(over, rel)) ?? []) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (rel === '' && skip.includes(entry.name)) continue;
      if (entry.kind === 'symlink') out.push({ path, kind: 'link', target: entry.target ?? '' });
      else if (rel === '' && entry.kind === 'dir' && entry.name.startsWith('@')) {
        out.push({ path, kind: 'dir' });
        walk(path);
      } else out.push({ path, kind: 'link' });
    }
  };
  walk('');
  return out;
}

/** The mounts of a layer at `dir` over the host's `over` (the same path, or another: a reader's copy). */
export function layerOps(dir: string, over: string, view: FsView, skip: readonly string[], ops: MountOp[]): void {
  ops.push({ op: 'tmpfs', dest: dir });
  // Binds, not links into a hidden base: a dependency's real path must stay `node_modules/NAME`.
  for (const entry of view.list(over) ?? []) {
    if (skip.includes(entry.name)) continue;
    const dest = `${dir}/${entry.name}`;
    if (entry.kind === 'symlink') ops.push({ op: 'symlink', target: entry.target ?? '', dest });
    else ops.push({ op: 'ro-bind', src: `${over}/${entry.name}`, dest });
  }
}

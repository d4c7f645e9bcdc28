// A throwaway layer over a folder, made of what bwrap 0.8 has (no overlayfs): a writable tmpfs at the folder's
// path holding the folder itself read-only (LAYER_BASE) and a symlink into it for each entry. A tool sees every
// entry, cannot change one, and makes new ones (vite's node_modules/.vite-temp) in the tmpfs. Symlinks, not
// binds: bwrap reads its mount table again for every bind, so 300 binds cost 85 ms where 300 links cost 2.
import { join } from 'node:path';
import type { FsView, MountOp } from './sandbox-plan.js';

/** Where a layer holds the folder it lies over, read-only: `node_modules/.leap-ro`. */
const LAYER_BASE = '.leap-ro';

/** Entries of a dependency folder tools write into (bundled configs, caches): left out of its layer, made afresh. */
export const DEPENDENCY_CACHES: readonly string[] = ['.cache', '.vite', '.vite-temp', '.vitest'];

/** Places in home a test run writes (Go's build cache, every tool that follows XDG): the writer's own, else a layer. */
export const HOME_CACHES: readonly string[] = ['.cache'];

/** An entry of a layer: a folder of its own (`@scope`), or a link to `target` (a symlink's own), else into the base. */
export interface LayerEntry {
  path: string;
  kind: 'dir' | 'link';
  target?: string;
}

/**
 * The entries of a layer over `over`, but `skip`. A symlink keeps its own target, so a relative one resolves
 * from the layer as from the folder (a workspace's `node_modules/@scope/pkg -> ../../packages/pkg`); a scope
 * folder (`@x`) is a folder of the layer, its entries linked one by one, for the same reason.
 */
export function layerEntries(over: string, view: FsView, skip: readonly string[] = DEPENDENCY_CACHES): LayerEntry[] {
  const out: LayerEntry[] = [];
  const walk = (rel: string): void => {
    for (const entry of view.list(rel === '' ? over : join(over, rel)) ?? []) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (rel === '' && (skip.includes(entry.name) || entry.name === LAYER_BASE)) continue;
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
  ops.push({ op: 'tmpfs', dest: dir }, { op: 'ro-bind', src: over, dest: join(dir, LAYER_BASE) });
  for (const entry of layerEntries(over, view, skip)) {
    // Strings, not path.relative: it costs 15 µs an entry, half of a 300-entry plan.
    const dest = `${dir}/${entry.path}`;
    const up = entry.path.includes('/') ? '../' : '';
    if (entry.kind === 'dir') ops.push({ op: 'dir', dest });
    else ops.push({ op: 'symlink', target: entry.target ?? `${up}${LAYER_BASE}/${entry.path}`, dest });
  }
}

// A throwaway layer over a folder, made of what bwrap 0.8 has (no overlayfs): a writable tmpfs at the folder's
// path holding a read-only bind of each entry at its own path (a symlink entry as itself). A tool sees every entry
// where it is (real paths unchanged), cannot change one, and makes new ones (vite's .vite-temp) in the tmpfs.
import { join } from 'node:path';
import type { FsView, MountOp } from './sandbox-plan.js';

/** Entries of a dependency folder tools write into (bundled configs, caches): left out of its layer, made afresh. */
export const DEPENDENCY_CACHES: readonly string[] = ['.cache', '.vite', '.vite-temp', '.vitest'];

/** Places in home a test run writes (Go's build cache, every tool that follows XDG): the writer's own, else a layer. */
export const HOME_CACHES: readonly string[] = ['.cache'];

/** An entry of a folder of links (an unsandboxed copy's node_modules): a folder (`@scope`), or a link (its own `target`). */
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
  // Binds, not links into a hidden base: a dependency's real path must stay `node_modules/NAME` (a test that
  // compares resolved paths saw `.leap-ro/NAME`). A bind costs about a millisecond; a scope folder is one bind.
  for (const entry of view.list(over) ?? []) {
    if (skip.includes(entry.name)) continue;
    const dest = `${dir}/${entry.name}`;
    if (entry.kind === 'symlink') ops.push({ op: 'symlink', target: entry.target ?? '', dest });
    else ops.push({ op: 'ro-bind', src: `${over}/${entry.name}`, dest });
  }
}

// A throwaway layer (bwrap 0.8 has no overlayfs): a tmpfs at the folder's path, a read-only bind per entry.
import { join } from 'node:path';
import type { FsView, MountOp } from './sandbox-plan.js';

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

// Waves of a slice (CONTRACT section 7): a ball runs once every ball it depends on has run, so
// wave k holds the balls whose longest dependency chain has k links; in file order within a wave.
import { LeapError } from '@leap/core';
import type { Slice } from './slice-schema.js';

/**
 * The dependency cycles of `graph` (ball id -> the ids it depends on), each as the path of ids
 * around it, starting at its first ball in `graph`'s order; one cycle per back edge of a depth-first walk.
 */
export function dependencyCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const visit = (id: string): void => {
    state.set(id, 'open');
    stack.push(id);
    for (const dep of graph.get(id) ?? []) {
      if (!graph.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'open') {
        const cycle = stack.slice(stack.lastIndexOf(dep));
        const key = [...cycle].sort().join('\0');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (s === undefined) {
        visit(dep);
      }
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of graph.keys()) if (!state.has(id)) visit(id);
  return cycles;
}

/** Ball ids per wave, in dependency order; throws a LeapError (exit 2) on a cycle or an unknown dependency. */
export function planWaves(slice: Slice): string[][] {
  const deps = new Map(slice.balls.map((b) => [b.id, b.deps] as const));
  const depth = new Map<string, number>();
  const open = new Set<string>();
  // A ball's wave is one past its deepest dependency's: each ball is measured once.
  const measure = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (open.has(id)) {
      const cycle = dependencyCycles(deps)[0] ?? [id];
      throw new LeapError(`slice ${JSON.stringify(slice.id)}: dependency cycle: ${[...cycle, cycle[0]].map((c) => JSON.stringify(c)).join(' -> ')}`, { exitCode: 2 });
    }
    open.add(id);
    let k = 0;
    for (const dep of deps.get(id) ?? []) {
      if (!deps.has(dep)) throw new LeapError(`slice ${JSON.stringify(slice.id)}: ball ${JSON.stringify(id)} depends on ${JSON.stringify(dep)}, which is not a ball of this slice`, { exitCode: 2 });
      k = Math.max(k, measure(dep) + 1);
    }
    open.delete(id);
    depth.set(id, k);
    return k;
  };
  const waves: string[][] = [];
  for (const ball of slice.balls) (waves[measure(ball.id)] ??= []).push(ball.id);
  return waves;
}

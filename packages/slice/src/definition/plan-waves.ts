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
  const ids = new Set(slice.balls.map((b) => b.id));
  const depth = new Map<string, number>();
  const pending = new Map(slice.balls.map((b) => [b.id, b.deps] as const));
  for (const [id, deps] of pending) {
    const unknown = deps.find((d) => !ids.has(d));
    if (unknown !== undefined) throw new LeapError(`slice ${JSON.stringify(slice.id)}: ball ${JSON.stringify(id)} depends on ${JSON.stringify(unknown)}, which is not a ball of this slice`, { exitCode: 2 });
  }
  while (pending.size > 0) {
    let moved = false;
    for (const [id, deps] of pending) {
      if (!deps.every((d) => depth.has(d))) continue;
      depth.set(id, deps.reduce((max, d) => Math.max(max, (depth.get(d) ?? 0) + 1), 0));
      pending.delete(id);
      moved = true;
    }
    if (!moved) {
      const cycle = dependencyCycles(pending)[0] ?? [...pending.keys()];
      throw new LeapError(`slice ${JSON.stringify(slice.id)}: dependency cycle: ${[...cycle, cycle[0]].map((c) => JSON.stringify(c)).join(' -> ')}`, { exitCode: 2 });
    }
  }
  const waves: string[][] = [];
  for (const ball of slice.balls) {
    const k = depth.get(ball.id) ?? 0;
    (waves[k] ??= []).push(ball.id);
  }
  return waves;
}

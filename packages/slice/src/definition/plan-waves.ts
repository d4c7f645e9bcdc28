// Waves of a slice (CONTRACT section 7): a ball runs once every ball it depends on has run, so
// wave k holds the balls whose longest dependency chain has k links; in file order within a wave.
import { LeapError } from '@leap/core';
import type { Slice } from './slice-schema.js';

/**
 * The dependency cycles among `count` balls, each as the indices around it; `depsAt(i)` are ball i's
 * dependencies and `indexOf` a dependency's ball (-1: no such ball, skipped). One cycle per back edge
 * of a depth-first walk, each set of balls once. Indices and typed arrays: a thousand balls allocate little.
 */
export function cycleIndices(count: number, depsAt: (i: number) => readonly unknown[], indexOf: (id: unknown) => number): number[][] {
  const state = new Uint8Array(count); // 0 unseen, 1 on the stack, 2 done
  const stack: number[] = [];
  const cycles: number[][] = [];
  let seen: Set<string> | undefined;
  const visit = (i: number): void => {
    state[i] = 1;
    stack.push(i);
    const deps = depsAt(i);
    for (let k = 0; k < deps.length; k++) {
      const j = indexOf(deps[k]);
      if (j < 0) continue;
      if (state[j] === 1) {
        const cycle = stack.slice(stack.lastIndexOf(j));
        const key = [...cycle].sort((a, b) => a - b).join(',');
        seen ??= new Set();
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (state[j] === 0) {
        visit(j);
      }
    }
    stack.pop();
    state[i] = 2;
  };
  for (let i = 0; i < count; i++) if (state[i] === 0) visit(i);
  return cycles;
}

/**
 * The dependency cycles of `graph` (ball id -> the ids it depends on), each as the path of ids
 * around it, starting at its first ball in `graph`'s order; one cycle per back edge of a depth-first walk.
 */
export function dependencyCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const ids = [...graph.keys()];
  const index = new Map(ids.map((id, i) => [id, i] as const));
  return cycleIndices(ids.length, (i) => graph.get(ids[i] as string) ?? [], (id) => index.get(id as string) ?? -1).map((c) => c.map((i) => ids[i] as string));
}

/** Ball ids per wave, in dependency order; throws a LeapError (exit 2) on a cycle or an unknown dependency. */
export function planWaves(slice: Slice): string[][] {
  const balls = slice.balls;
  const index = new Map<string, number>();
  for (let i = 0; i < balls.length; i++) index.set((balls[i] as Slice['balls'][number]).id, i);
  const depth = new Int32Array(balls.length).fill(-1);
  const open = new Uint8Array(balls.length);
  // A ball's wave is one past its deepest dependency's: each ball is measured once.
  const measure = (i: number): number => {
    const known = depth[i] as number;
    if (known >= 0) return known;
    const ball = balls[i] as Slice['balls'][number];
    if (open[i] === 1) {
      const cycle = dependencyCycles(new Map(balls.map((b) => [b.id, b.deps] as const)))[0] ?? [ball.id];
      throw new LeapError(`slice ${JSON.stringify(slice.id)}: dependency cycle: ${[...cycle, cycle[0]].map((c) => JSON.stringify(c)).join(' -> ')}`, { exitCode: 2 });
    }
    open[i] = 1;
    let k = 0;
    for (let d = 0; d < ball.deps.length; d++) {
      const dep = ball.deps[d] as string;
      const j = index.get(dep);
      if (j === undefined) throw new LeapError(`slice ${JSON.stringify(slice.id)}: ball ${JSON.stringify(ball.id)} depends on ${JSON.stringify(dep)}, which is not a ball of this slice`, { exitCode: 2 });
      k = Math.max(k, measure(j) + 1);
    }
    open[i] = 0;
    depth[i] = k;
    return k;
  };
  const waves: string[][] = [];
  for (let i = 0; i < balls.length; i++) (waves[measure(i)] ??= []).push((balls[i] as Slice['balls'][number]).id);
  return waves;
}

// Waves (CONTRACT section 7): wave k holds, in file order, the balls whose longest dependency chain has k links.
import { LeapError } from '@leap/core';
import type { Slice } from './slice-schema.js';

/** Depth first in file order on its own stack (any chain fits): one cycle per back edge, and each ball's depth. */
export function walkGraph(n: number, start: Int32Array, edges: readonly number[]) {
  const state = new Uint8Array(n); // 0 unseen, 1 on the stack, 2 done
  const next = new Int32Array(n);
  const depth = new Int32Array(n);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let seen: Set<string> | undefined;
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    state[root] = 1;
    next[root] = start[root] as number;
    stack.push(root);
    while (stack.length > 0) {
      const i = stack[stack.length - 1] as number;
      const e = next[i] as number;
      if (e === start[i + 1]) {
        stack.pop();
        state[i] = 2;
        const parent = stack[stack.length - 1];
        if (parent !== undefined && (depth[i] as number) >= (depth[parent] as number))
          depth[parent] = (depth[i] as number) + 1;
        continue;
      }
      next[i] = e + 1;
      const j = edges[e] as number;
      if (state[j] === 0) {
        state[j] = 1;
        next[j] = start[j] as number;
        stack.push(j);
      } else if (state[j] === 2) {
        if ((depth[j] as number) >= (depth[i] as number)) depth[i] = (depth[j] as number) + 1;
      } else {
        const cycle = stack.slice(stack.lastIndexOf(j));
        const key = [...cycle].sort((a, b) => a - b).join(',');
        seen ??= new Set();
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      }
    }
  }
  return { cycles, depth };
}

// The graph of `ids` as walkGraph takes it; a dependency that names no ball is `unknown`'s (skipped when it returns).
function adjacency(ids: string[], depsOf: (i: number) => readonly string[], unknown?: (i: number, d: string) => void) {
  const index = new Map(ids.map((id, i) => [id, i]));
  const start = new Int32Array(ids.length + 1);
  const edges: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    start[i] = edges.length;
    for (const dep of depsOf(i)) {
      const j = index.get(dep);
      if (j === undefined) unknown?.(i, dep);
      else edges.push(j);
    }
  }
  start[ids.length] = edges.length;
  return { start, edges };
}

/** `graph`'s cycles (id -> dependencies), one per back edge, each the ids around it from its first in graph order. */
export function dependencyCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const ids = [...graph.keys()];
  const { start, edges } = adjacency(ids, (i) => graph.get(ids[i] as string) ?? []);
  return walkGraph(ids.length, start, edges).cycles.map((c) => c.map((i) => ids[i] as string));
}

/** Ball ids per wave (one past a ball's deepest dependency's); a cycle or unknown dependency: LeapError (exit 2). */
export function planWaves(slice: Slice): string[][] {
  const ids = slice.balls.map((b) => b.id);
  const fail = (message: string) => new LeapError(`slice ${JSON.stringify(slice.id)}: ${message}`, { exitCode: 2 });
  const unknown = (i: number, dep: string) => {
    throw fail(`ball ${JSON.stringify(ids[i])} depends on ${JSON.stringify(dep)}, which is not a ball of this slice`);
  };
  const { start, edges } = adjacency(ids, (i) => (slice.balls[i] as Slice['balls'][number]).deps, unknown);
  const { cycles, depth } = walkGraph(ids.length, start, edges);
  const cycle = cycles[0]?.map((i) => ids[i] as string);
  if (cycle !== undefined)
    throw fail(`dependency cycle: ${[...cycle, cycle[0]].map((c) => JSON.stringify(c)).join(' -> ')}`);
  return wavesOf(ids, depth);
}

export function wavesOf(ids: readonly string[], depth: Int32Array): string[][] {
  const waves: string[][] = [];
  for (let i = 0; i < ids.length; i++) (waves[depth[i] as number] ??= []).push(ids[i] as string);
  return waves;
}

// Checked before anything is touched: the schema, then what it cannot say (the slice's own rules, paths kept inside).
import { isAbsolute, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Ball, RoundRequest, Slice } from '@leap/slice';
import { roundJobSchema, schemaProblems, type RoundJobBody } from './job-schema.js';
import { ballBranch } from './protocol.js';

export class BadJobError extends Error {}

function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(root, path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

type Checked = { body: RoundJobBody; request: Omit<RoundRequest, 'agentsFile'> };

/** The job's round as a request for buildRoundIn (its agents file the worker's own), or a BadJobError. */
export async function checkJobBody(value: unknown, dir: string): Promise<Checked> {
  const problems = schemaProblems(roundJobSchema, value);
  if (problems.length > 0) throw new BadJobError(problems.join('; '));
  const body = roundJobSchema.parse(value);
  const r = body.request;
  const found: string[] = [];
  const q = JSON.stringify;
  const branch = ballBranch(r.slice, r.ball);
  if (r.branch !== branch) found.push(`request.branch: expected ${q(branch)}, got ${q(r.branch)}`);
  const { validateSlice } = await import('@leap/slice');
  const violations = validateSlice(r.definition);
  if (violations.length > 0) {
    const shown = violations.slice(0, 4).map((v) => q(v));
    found.push(`request.definition is not a valid slice: ${shown.join('; ')}`);
  } else {
    const slice = r.definition as unknown as Slice;
    if (slice.id !== r.slice)
      found.push(`request.definition.id: expected the job's slice ${q(r.slice)}, got ${q(slice.id)}`);
    const ball = slice.balls.find((b) => b.id === r.ball);
    if (ball === undefined) found.push(`request.definition: no ball ${q(r.ball)}`);
    else if (!isDeepStrictEqual(ball, r.spec)) found.push("request.spec: not the definition's ball of that id");
    const ids = new Set(slice.balls.map((b) => b.id));
    for (const p of r.passed) if (!ids.has(p)) found.push(`request.passed: no ball ${q(p)} in the slice`);
    const work = resolve(dir, 'work', r.slice, r.ball);
    for (const place of [work, resolve(dir, 'state', r.slice, r.ball)])
      if (!isInside(dir, place)) found.push(`${place} is outside the worker's folder`);
    for (const b of slice.balls)
      for (const entry of b.scope.filter((e) => !isInside(work, e.path)))
        found.push(`ball ${b.id}: scope path ${q(entry.path)} leads out of the ball's worktree`);
  }
  if (found.length > 0) throw new BadJobError(found.join('; '));
  return { body, request: { ...r, definition: r.definition as unknown as Slice, spec: r.spec as unknown as Ball } };
}

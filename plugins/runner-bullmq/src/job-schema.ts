// The source of schemas/round-*.schema.json; a job holds nothing that runs or is secret (no agents file, env or URL).
import { isAbsolute, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ID_PATTERN, type Ball, type Slice } from '@leap/slice';
import { ballBranch } from './protocol.js';

const id = z.string().regex(ID_PATTERN, 'an id is 1 to 64 of a-z 0-9 . _ -, starting with a letter or digit');
const sha = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'a full commit sha (40 or 64 lowercase hex digits)');
const hash = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 (64 lowercase hex digits)');
const printable = /^[^\p{Cc}]+$/u;
const name = z.string().min(1).max(200).regex(printable, 'a printable name (no control characters)');
const family = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a family: 1 to 64 of A-Z a-z 0-9 _ . -');
const receipt = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
const proofRun = z.strictObject({
  code: z.number().int(),
  metric: z.record(z.string(), z.number()).nullable(),
  ms: z.number().nonnegative(),
  note: z.string().optional(),
});

const DEFINITION = 'the slice, as slice.schema.json of @leap/slice (checked with its rules)';
const BUILT_BY =
  "the families of other builders whose kept work the round's commit holds (a fall-over mid-ball): " +
  'no reviewer of theirs sits';
const SKIP_JURORS = 'reviewers whose vendor ran dry on an earlier jury of the run: passed over before dispatch';
const FAMILIES =
  "the round's agent families: its builder's and its reviewers' " +
  '(a labelled worker takes only rounds whose families it has)';
const DRY =
  "the builder's vendor ran dry: nothing was built, the round is built again by the engine's next builder, not counted";

const families = z.strictObject({ builder: family, reviewers: z.array(family).max(16) });

/** Nothing that runs but the ball's own proof. */
const roundRequestSchema = z
  .strictObject({
    slice: id,
    ball: id,
    round: z.number().int().min(1).max(4),
    commit: sha,
    start: sha,
    agent: name,
    branch: z.string(),
    definition: z.record(z.string(), z.unknown()).describe(DEFINITION),
    spec: z.record(z.string(), z.unknown()).describe('the ball, exactly as the definition holds it'),
    prompt: z.string().max(1_000_000),
    reviewers: z.array(name).max(16),
    alternates: z.array(name).max(16),
    champion: proofRun.nullable(),
    checkMap: z.boolean(),
    passed: z.array(id),
    timeoutMs: z.number().int().nonnegative(),
    authors: z.array(z.string().max(400)).max(64),
    costLeftUsd: z.number().nonnegative().nullable(),
    builtBy: z.array(family).max(16).optional().describe(BUILT_BY),
    skipJurors: z.array(name).max(32).optional().describe(SKIP_JURORS),
  })
  .describe('One round of one LEAP ball: what the worker builds, with its own agents file and its own remote.');

const roundJobSchema = z
  .strictObject({
    v: z.literal(1),
    /** This engine run's id: a later run removes the waiting jobs of a dead one. */
    run: z.string().regex(/^[0-9a-f]{12}$/),
    /** A hash of the engine's remote (its URL is never queued). */
    remote: hash,
    request: roundRequestSchema,
    families: families.optional().describe(FAMILIES),
  })
  .describe('A round job of the bullmq runner (the signed body of a job on the leap-rounds queue).');

const dryKind = z.enum(['quota', 'rate-limit', 'overload']);
const seat = { value: receipt, replaced: z.boolean(), dry: dryKind.optional() };
const count = z.number().int().nonnegative().nullable();
const cost = z.number().nonnegative().nullable();
const model = z.string().nullable();
const usage = z.strictObject({ model, input_tokens: count, output_tokens: count, cost_usd: cost });
const answer = z.strictObject({ hypothesis: z.string().max(10_000), move: z.string().max(10_000) });
const dry = z.strictObject({ kind: dryKind, message: z.string().max(10_000) });

/** A worker's answer: the round's result as buildRoundIn gave it, the branch tip it pushed, its leaves' event lines. */
export const roundResultSchema = z
  .strictObject({
    v: z.literal(1),
    worker: name,
    tip: sha,
    receipt: receipt.nullable(),
    reason: z.string().max(100_000),
    candidate: hash.nullable(),
    commit: sha.nullable(),
    proof: proofRun.nullable(),
    changed: z.array(z.string()),
    champion: proofRun.nullable(),
    jury: z
      .strictObject({
        value: receipt,
        reason: z.string(),
        candidate: z.string(),
        seats: z.array(z.strictObject({ reviewer: z.string(), family: z.string(), verdict: z.string(), ...seat })),
        refused: z.array(z.strictObject({ reviewer: z.string(), family: z.string(), reason: z.string() })),
      })
      .nullable(),
    reproof: z
      .strictObject({ code: z.number().int(), candidate: hash.nullable(), ms: z.number().nonnegative().optional() })
      .nullable(),
    builder: z.strictObject({ agent: z.string(), family: z.string(), leaf: z.string(), status: z.string().nullable() }),
    leaves: z.array(z.strictObject({ leaf: z.string().min(1), usage: usage.nullable() })).max(64),
    answer: answer.nullable().optional(),
    live: z
      .strictObject({
        code: z.number().int(),
        ms: z.number().nonnegative(),
        sha256: hash,
        bytes: z.number().int().nonnegative(),
        truncated: z.boolean(),
        output: z.string().max(64 * 1024),
        note: z.string().max(10_000).optional(),
      })
      .optional(),
    dry: dry.optional().describe(DRY),
    events: z.array(z.string()).max(10_000),
  })
  .describe("A round result of the bullmq runner (the signed body of a completed job's return value).");

export type RoundJobBody = z.infer<typeof roundJobSchema>;

/** `value` as `schema` parses it, else `refuse`d with its problems in one line (`request.ball: an id is ...; ...`). */
export function parseOr<T extends z.ZodType>(schema: T, value: unknown, refuse: (why: string) => Error): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const at = (path: PropertyKey[]) => (path.length === 0 ? '(the body)' : path.join('.'));
  const problems = parsed.error.issues.slice(0, 8).map((issue) => `${at(issue.path)}: ${issue.message}`);
  throw refuse(problems.join('; '));
}

export class BadJobError extends Error {}

const isInside = (root: string, path: string) => {
  const rel = relative(resolve(root), resolve(root, path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The job's round as a request for buildRoundIn (its agents file the worker's own), or a BadJobError listing every
 * problem: the schema's, then what it cannot say (the slice's own rules, paths kept inside the worker's folder). */
export async function checkJobBody(value: unknown, dir: string) {
  const body = parseOr(roundJobSchema, value, (problems) => new BadJobError(problems));
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
  const request = { ...r, definition: r.definition as unknown as Slice, spec: r.spec as unknown as Ball };
  return { body, request };
}

export async function runnerJsonSchemas(): Promise<Record<string, Record<string, unknown>>> {
  const { toPublishedSchema } = await import('@leap/core/schemas');
  const file = (schema: z.ZodType, name: string, title: string) =>
    [`${name}.schema.json`, toPublishedSchema(schema, `https://leap.dev/schemas/${name}.schema.json`, title)] as const;
  return Object.fromEntries([
    file(roundJobSchema, 'round-job', 'LEAP bullmq round job'),
    file(roundResultSchema, 'round-result', 'LEAP bullmq round result'),
  ]);
}

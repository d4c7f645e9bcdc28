// The source of schemas/round-*.schema.json; a job holds nothing that runs or is secret (no agents file, env or URL).
import { z } from 'zod';
import { ID_PATTERN } from '@leap/slice';

const id = z.string().regex(ID_PATTERN, 'an id is 1 to 64 of a-z 0-9 . _ -, starting with a letter or digit');
const sha = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'a full commit sha (40 or 64 lowercase hex digits)');
const hash = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 (64 lowercase hex digits)');
/** A name of an agent, a reviewer or a worker: printable, one line. */
const name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]+$/u, 'a printable name (no control characters)');
const family = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a family: 1 to 64 of A-Z a-z 0-9 _ . -');
const receipt = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
const proofRun = z.strictObject({
  code: z.number().int(),
  metric: z.record(z.string(), z.number()).nullable(),
  ms: z.number().nonnegative(),
  note: z.string().optional(),
});

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
    definition: z
      .record(z.string(), z.unknown())
      .describe('the slice, as slice.schema.json of @leap/slice (checked with its rules)'),
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
    builtBy: z
      .array(family)
      .max(16)
      .optional()
      .describe(
        "the families of other builders whose kept work the round's commit holds (a fall-over mid-ball): " +
          'no reviewer of theirs sits',
      ),
    skipJurors: z
      .array(name)
      .max(32)
      .optional()
      .describe('reviewers whose vendor ran dry on an earlier jury of the run: passed over before dispatch'),
  })
  .describe('One round of one LEAP ball: what the worker builds, with its own agents file and its own remote.');

export const roundJobSchema = z
  .strictObject({
    v: z.literal(1),
    /** This engine run's id: a later run removes the waiting jobs of a dead one. */
    run: z.string().regex(/^[0-9a-f]{12}$/),
    /** A hash of the engine's remote (its URL is never queued): a later run of the slice on it knows its own. */
    remote: hash,
    request: roundRequestSchema,
    /** The round's families (builder's, reviewers'): only a worker labelled with all (absent: unlabelled) takes it. */
    families: z
      .strictObject({ builder: family, reviewers: z.array(family).max(16) })
      .optional()
      .describe(
        "the round's agent families: its builder's and its reviewers' " +
          '(a labelled worker takes only rounds whose families it has)',
      ),
  })
  .describe('A round job of the bullmq runner (the signed body of a job on the leap-rounds queue).');

const usage = z.strictObject({
  model: z.string().nullable(),
  input_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
  cost_usd: z.number().nonnegative().nullable(),
});

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
        seats: z.array(
          z.strictObject({
            reviewer: z.string(),
            family: z.string(),
            verdict: z.string(),
            value: receipt,
            replaced: z.boolean(),
            dry: z.enum(['quota', 'rate-limit', 'overload']).optional(),
          }),
        ),
        refused: z.array(z.strictObject({ reviewer: z.string(), family: z.string(), reason: z.string() })),
      })
      .nullable(),
    reproof: z
      .strictObject({ code: z.number().int(), candidate: hash.nullable(), ms: z.number().nonnegative().optional() })
      .nullable(),
    builder: z.strictObject({ agent: z.string(), family: z.string(), leaf: z.string(), status: z.string().nullable() }),
    leaves: z.array(z.strictObject({ leaf: z.string().min(1), usage: usage.nullable() })).max(64),
    /** The builder's one hypothesis and its move (CONTRACT section 7), as the round record keeps them. */
    answer: z
      .strictObject({ hypothesis: z.string().max(10_000), move: z.string().max(10_000) })
      .nullable()
      .optional(),
    /** The ball's live proof's evidence: at most 16 KiB of its output kept, hashed. */
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
    /** The builder's vendor ran dry (quota, rate limit, overload): nothing built, the engine asks its next builder. */
    dry: z
      .strictObject({ kind: z.enum(['quota', 'rate-limit', 'overload']), message: z.string().max(10_000) })
      .optional()
      .describe(
        "the builder's vendor ran dry: nothing was built, " +
          "the round is built again by the engine's next builder, not counted",
      ),
    events: z.array(z.string()).max(10_000),
  })
  .describe("A round result of the bullmq runner (the signed body of a completed job's return value).");

export type RoundJobBody = z.infer<typeof roundJobSchema>;
export type RoundResultBody = z.infer<typeof roundResultSchema>;

/** `value`'s problems as `schema` sees them, one line each (`request.ball: an id is ...`); none when valid. */
export function schemaProblems(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length === 0 ? '(the body)' : issue.path.join('.')}: ${issue.message}`);
}

/** The JSON Schemas this package publishes under schemas/, by file name. */
export async function runnerJsonSchemas(): Promise<Record<string, Record<string, unknown>>> {
  const { toPublishedSchema } = await import('@leap/core/schemas');
  const base = 'https://leap.dev/schemas';
  return {
    'round-job.schema.json': toPublishedSchema(
      roundJobSchema,
      `${base}/round-job.schema.json`,
      'LEAP bullmq round job',
    ),
    'round-result.schema.json': toPublishedSchema(
      roundResultSchema,
      `${base}/round-result.schema.json`,
      'LEAP bullmq round result',
    ),
  };
}

// The slice file's one schema (CONTRACT section 7) as zod, schemas/ generated from it; the rules are slice-rules.ts's.
import { z } from 'zod';
import { ID_PATTERN, NON_EMPTY_PATTERN } from './violation.js';

// A pattern, not `minLength`: ajv counts every code point for a minLength; the pattern reads one character.
const nonEmpty = () => z.string().regex(new RegExp(NON_EMPTY_PATTERN), 'a non-empty string');
const id = z.string().regex(ID_PATTERN, 'an id is 1 to 64 of a-z 0-9 . _ -, starting with a letter or digit');

const scopeEntrySchema = z
  .strictObject({
    path: nonEmpty(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits')
      .nullable(),
    symbols: z.array(nonEmpty()).optional(),
    lines: z.array(z.tuple([z.number().int().positive(), z.number().int().positive()])).optional(),
  })
  .describe('One file a ball may touch, with its content hash when the ball was cut (null: the ball creates it).');

const metricFieldSchema = z.strictObject({ field: nonEmpty(), better: z.enum(['higher', 'lower']) });

const proofSchema = z
  .strictObject({ argv: z.array(z.string()).min(1), metric: z.array(metricFieldSchema).optional() })
  .describe(
    "Run without a shell in the ball's worktree; exit 0 is success; " +
      'with a metric, its last stdout line is a JSON object of numbers.',
  );

const liveSchema = z
  .strictObject({ argv: z.array(z.string()).min(1), timeout_s: z.number().positive(), network: z.boolean().optional() })
  .describe(
    "The proof on the real surface: run without a shell in the candidate's worktree after the tests, " +
      'killed whole at timeout_s; exit 0 is required; its output (bounded, hashed) is the live evidence.',
  );

export const ballSchema = z
  .strictObject({
    id,
    goal: nonEmpty(),
    spec: z.string(),
    scope: z.array(scopeEntrySchema).min(1),
    proof: proofSchema,
    rollback: z.string(),
    deps: z.array(z.string()),
    live: liveSchema.optional(),
    red_first: z
      .boolean()
      .describe('The proof must fail at base: checked before round one, a proof that already passes there is -1.')
      .optional(),
  })
  .describe('One unit of work a builder can own alone.');

export const sliceSchema = z
  .strictObject({
    $schema: z.string().optional(),
    id,
    base: nonEmpty(),
    spine: nonEmpty(),
    balls: z.array(ballSchema).min(1),
    live: liveSchema.optional(),
    require_live: z
      .boolean()
      .describe('Every ball must declare a live proof: validate refuses one without.')
      .optional(),
  })
  .describe('A LEAP slice: balls, their dependencies, and the one write spine.');

export type MetricField = z.infer<typeof metricFieldSchema>;
export type Proof = z.infer<typeof proofSchema>;
export type LiveProof = z.infer<typeof liveSchema>;
export type Ball = z.infer<typeof ballSchema>;
export type Slice = z.infer<typeof sliceSchema>;
/** A ball's result: -1 refuse, 0 hold, 1 pass. No other value. */
export type Receipt = -1 | 0 | 1;

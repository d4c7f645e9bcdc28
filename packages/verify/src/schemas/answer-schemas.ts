// The answers agents give, as zod schemas: the source of truth of schemas/*.schema.json.
// This module loads zod; only the schema generator and the drift test import it. At run time the
// committed JSON Schemas are validated with ajv (see validate-answer.ts).
import { z } from 'zod';
import { toPublishedSchema } from '@leap/core/schemas';

/** The blind verifier's answer. */
export const verdictAnswerSchema = z
  .strictObject({
    verdict: z.enum(['PASS', 'REJECT']).describe('PASS confirms the phase; REJECT refuses it'),
    reason: z.string().min(1).describe('Why, in a sentence or two'),
  })
  .describe("A blind verifier's verdict on one TDD phase.");

/** The four severities a juror's finding may carry. */
export const SEVERITIES = ['blocker', 'major', 'minor', 'info'] as const;

/** A blind juror's answer (blind-tribunal v3: findings as "[severity] file:line claim" strings). */
export const reviewAnswerSchema = z
  .strictObject({
    verdict: z.enum(['pass', 'refuse']).describe('pass, or refuse (a refuse halts the pipeline)'),
    lens: z.string().min(1).describe('The lens the juror was seated with'),
    findings: z
      .array(z.string().regex(/^\[(?:blocker|major|minor|info)\] \S/).describe('"[severity] file:line claim"'))
      .describe('At most 10 findings are asked for; a pass may list only minor and info findings'),
    reasoning: z.string().describe('Concise reasoning; a strong pass names what it checked'),
  })
  .describe("A blind juror's verdict on one candidate.");

/** The JSON Schemas this package publishes under schemas/, by file name. */
export function verifyJsonSchemas(): Record<string, Record<string, unknown>> {
  return {
    'verdict.schema.json': toPublishedSchema(verdictAnswerSchema, 'https://leap.dev/schemas/verdict.schema.json', 'LEAP verifier verdict'),
    'review.schema.json': toPublishedSchema(reviewAnswerSchema, 'https://leap.dev/schemas/review.schema.json', 'LEAP juror verdict'),
  };
}

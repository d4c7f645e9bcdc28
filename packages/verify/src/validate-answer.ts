// Answers checked by ajv-generated validators (schemas/answer-validators.generated.ts): nothing compiled at run time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { validateReviewAnswer, validateVerdictAnswer } from './schemas/answer-validators.generated.js';

export type AnswerSchemaName = 'verdict.schema.json' | 'review.schema.json';

type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
const VALIDATORS: Record<AnswerSchemaName, Validator> = {
  'verdict.schema.json': validateVerdictAnswer as Validator,
  'review.schema.json': validateReviewAnswer as Validator,
};

export function loadVerifySchema(fileName: string): Record<string, unknown> {
  // Read once a process (the package's files do not change under it); each caller gets its own object.
  packageRoot ??= dirname(createRequire(import.meta.url).resolve('@leap/verify/package.json'));
  const text = schemaTexts.get(fileName) ?? readFileSync(join(packageRoot, 'schemas', fileName), 'utf8');
  schemaTexts.set(fileName, text);
  return JSON.parse(text) as Record<string, unknown>;
}

let packageRoot: string | undefined;
const schemaTexts = new Map<string, string>();

/** Check `data` against a published schema: null when it matches, else the first problem, naming `source`. */
export function answerProblem(fileName: AnswerSchemaName, data: unknown, source: string): string | null {
  const validate = VALIDATORS[fileName];
  if (validate(data)) return null;
  const first = validate.errors?.[0];
  // Every schema is published as https://leap.dev/schemas/FILE (answer-schemas.ts); its $id names it in the message.
  const where = `${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`;
  return `${source}: does not match https://leap.dev/schemas/${fileName}: ${where}`;
}

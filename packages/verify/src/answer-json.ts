// A verifier's answer must BE one JSON object; a juror's is the LAST object with a "verdict" (blind-tribunal 3.6).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { orElse, parseJsonObject } from '@leap/core';
import { validateReviewAnswer, validateVerdictAnswer } from './schemas/answer-validators.generated.js';

export function parseWholeJson(text: string): { value: unknown } | null {
  let body = text.trim();
  const fence = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1$/.exec(body);
  if (fence !== null) body = (fence[2] as string).trim();
  return orElse(() => ({ value: JSON.parse(body) as unknown }), null);
}

/** The last top-level JSON object in the text that has a "verdict" key, code fences ignored; null when none. */
export function lastVerdictObject(text: string): Record<string, unknown> | null {
  const source = text.replace(/^[ \t]*(?:`{3,}|~{3,})[^\n]*$/gm, '');
  let found: Record<string, unknown> | null = null;
  for (let start = source.indexOf('{'); start !== -1; ) {
    const end = objectEnd(source, start);
    const value = end === -1 ? undefined : orElse(() => JSON.parse(source.slice(start, end + 1)) as object, undefined);
    if (value !== undefined && 'verdict' in value) found = value as Record<string, unknown>;
    start = source.indexOf('{', value === undefined ? start + 1 : end + 1);
  }
  return found;
}

function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth++;
    } else if (c === '}' && --depth === 0) {
      return i;
    }
  }
  return -1;
}

/** A developer's honest way out (CONTRACT section 9): a last non-empty line exactly `{"blocked": "REASON"}`. */
export function blockedReason(text: string): string | null {
  const value = parseJsonObject(text.trimEnd().split('\n').at(-1)?.trim() ?? '');
  const reason = value?.blocked;
  if (value === null || Object.keys(value).length !== 1) return null;
  return typeof reason === 'string' && reason.trim() !== '' ? reason : null;
}

// Answers checked by ajv-generated validators (schemas/answer-validators.generated.ts): nothing compiled at run time.
type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
const VALIDATORS = {
  'verdict.schema.json': validateVerdictAnswer as Validator,
  'review.schema.json': validateReviewAnswer as Validator,
};

export function loadVerifySchema(fileName: string): Record<string, unknown> {
  packageRoot ??= dirname(createRequire(import.meta.url).resolve('@leap/verify/package.json'));
  const text = schemaTexts.get(fileName) ?? readFileSync(join(packageRoot, 'schemas', fileName), 'utf8');
  schemaTexts.set(fileName, text);
  return JSON.parse(text) as Record<string, unknown>;
}

let packageRoot: string | undefined;
const schemaTexts = new Map<string, string>();

export function answerProblem(fileName: keyof typeof VALIDATORS, data: unknown, source: string): string | null {
  const validate = VALIDATORS[fileName];
  if (validate(data)) return null;
  const first = validate.errors?.[0];
  const where = `${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`;
  return `${source}: does not match https://leap.dev/schemas/${fileName}: ${where}`;
}

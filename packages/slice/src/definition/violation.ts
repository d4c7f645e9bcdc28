/** A slice or ball id (CONTRACT section 7), here so its readers need no zod. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The JSON Schema pattern of a non-empty string (slice-schema.ts says why it is not a minLength). */
export const NON_EMPTY_PATTERN = '^[\\s\\S]';

/** A slice file's violation of its schema or of a CONTRACT section 7 rule; `path` as `balls[2].scope[0].path`. */
export type Violation = { rule: string; message: string; balls: string[]; path?: string };

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The field path of a JSON pointer: `/balls/2/scope/0` is `balls[2].scope[0]`. */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

/** A value as an error message shows what was found: short, quoted, its kind when it is big. */
export function showFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}..."` : text;
}

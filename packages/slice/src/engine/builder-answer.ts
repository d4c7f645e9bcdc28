// The builder's closing {"hypothesis", "move"} (CONTRACT section 7): recorded, never obeyed; it changes no receipt.
import type { BuilderAnswer } from './records.js';
import { orElse } from '@leap/core';

const TAIL_CHARS = 16_000;
const FIELD_CHARS = 2_000;

/** The last JSON object of the answer holding a string `hypothesis` and a string `move`; null when there is none. */
export function readBuilderAnswer(text: string): BuilderAnswer | null {
  const tail = text.slice(-TAIL_CHARS).replace(/^[ \t]*(?:`{3,}|~{3,})[^\n]*$/gm, '');
  const end = tail.lastIndexOf('}');
  if (end === -1) return null;
  // From the last closing brace back, the first opening brace that starts a JSON object ending there.
  const before = (i: number) => (i === 0 ? -1 : tail.lastIndexOf('{', i - 1));
  for (let start = before(end + 1); start !== -1; start = before(start)) {
    const value = orElse(() => JSON.parse(tail.slice(start, end + 1)) as unknown, null);
    if (value === null) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const { hypothesis, move } = value as Record<string, unknown>;
    if (typeof hypothesis !== 'string' || typeof move !== 'string' || hypothesis.trim() === '' || move.trim() === '')
      return null;
    return { hypothesis: hypothesis.slice(0, FIELD_CHARS), move: move.slice(0, FIELD_CHARS) };
  }
  return null;
}

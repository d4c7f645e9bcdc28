// The builder's answer block (CONTRACT section 7): its answer ends with `{"hypothesis": "...", "move": "..."}`,
// one hypothesis and the smallest move, recorded in round-N.json. Read, never obeyed: it changes no receipt.
import type { BuilderAnswer } from './records.js';

/** How much of the answer's end is searched, and how much of each field is kept. */
const TAIL_CHARS = 16_000;
const FIELD_CHARS = 2_000;

/** The last JSON object of the answer holding a string `hypothesis` and a string `move`; null when there is none. */
export function readBuilderAnswer(text: string): BuilderAnswer | null {
  const tail = text.slice(-TAIL_CHARS).replace(/^[ \t]*(?:`{3,}|~{3,})[^\n]*$/gm, '');
  const end = tail.lastIndexOf('}');
  if (end === -1) return null;
  // From the last closing brace back, the first opening brace that starts a JSON object ending there.
  for (let start = tail.lastIndexOf('{', end); start !== -1; start = start === 0 ? -1 : tail.lastIndexOf('{', start - 1)) {
    let value: unknown;
    try {
      value = JSON.parse(tail.slice(start, end + 1));
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const { hypothesis, move } = value as Record<string, unknown>;
    if (typeof hypothesis !== 'string' || typeof move !== 'string' || hypothesis.trim() === '' || move.trim() === '') return null;
    return { hypothesis: hypothesis.slice(0, FIELD_CHARS), move: move.slice(0, FIELD_CHARS) };
  }
  return null;
}

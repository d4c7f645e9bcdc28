// A verifier's answer must BE one JSON object; a juror's is the LAST object with a "verdict" (blind-tribunal 3.6).
import { orElse } from '@leap/core';

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
    // Braces that are not JSON: keep scanning inside them.
    const value = end === -1 ? undefined : orElse(() => JSON.parse(source.slice(start, end + 1)) as object, undefined);
    if (value !== undefined && 'verdict' in value) found = value as Record<string, unknown>;
    start = source.indexOf('{', value === undefined ? start + 1 : end + 1);
  }
  return found;
}

// The index of the brace closing the object opened at `start`, strings respected; -1 when unbalanced.
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
  const last = text.trimEnd().split('\n').at(-1)?.trim() ?? '';
  if (!last.startsWith('{')) return null;
  const value: unknown = orElse(() => JSON.parse(last), null);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length !== 1)
    return null;
  const reason = (value as { blocked?: unknown }).blocked;
  return typeof reason === 'string' && reason.trim() !== '' ? reason : null;
}

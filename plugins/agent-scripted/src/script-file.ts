// The scripted agent's script: a JSON file of prepared moves, replayed one per launch.
import { readFileSync } from 'node:fs';
import { FileFormatError, showValue } from '@leap/core';

/** A file change a move makes in the agent's working folder. */
export type ScriptEdit = { path: string; content: string } | { path: string; delete: true };

/** One prepared launch: what the agent changes, prints and exits with (each field as the README says). */
export interface ScriptMove {
  answer?: unknown;
  stderr?: string;
  edits?: ScriptEdit[];
  commit?: string;
  sleep_ms?: number;
  wait_for?: string;
  hang?: boolean;
  exit?: number;
  dry?: 'quota' | 'rate-limit' | 'overload';
}

export type Script = { family: string | null; moves: ScriptMove[] };

const MOVE_KEYS = ['answer', 'stderr', 'edits', 'commit', 'sleep_ms', 'wait_for', 'hang', 'exit', 'dry'];
const DRY_KINDS = ['quota', 'rate-limit', 'overload'];
const isFileName = (v: unknown) => typeof v === 'string' && /^[^/\\]+$/.test(v) && v !== '..';
const isExitCode = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;
// Each field's check, in the order a move's fields are checked.
const MOVE_CHECKS: [string, string, (value: unknown) => boolean][] = [
  ['stderr', '"stderr" to be a string', (v) => typeof v === 'string'],
  ['commit', '"commit" to be a non-empty message', (v) => typeof v === 'string' && v !== ''],
  ['sleep_ms', '"sleep_ms" to be a non-negative number', (v) => typeof v === 'number' && v >= 0 && Number.isFinite(v)],
  ['wait_for', '"wait_for" to be a file name in SCRIPT.state/', isFileName],
  ['hang', '"hang" to be a boolean', (v) => typeof v === 'boolean'],
  ['dry', `"dry" to be one of ${DRY_KINDS.join(', ')}`, (v) => DRY_KINDS.includes(v as string)],
  ['exit', '"exit" to be an integer from 0 to 255', isExitCode],
  ['edits', '"edits" to be an array', Array.isArray],
];

/** Read and check a script file: `{"family": F, "moves": [...]}` or a bare array of moves. */
export function readScript(file: string): Script {
  const step = <T>(what: string, read: () => T): T => {
    try {
      return read();
    } catch (cause) {
      throw new FileFormatError(file, undefined, `${what}: ${(cause as Error).message}`, { cause });
    }
  };
  const text = step('cannot read the script', () => readFileSync(file, 'utf8'));
  const data: unknown = step('expected JSON, found a parse error', () => JSON.parse(text));
  return checkScript(data, file);
}

/** Check parsed script data; errors name the file, the move and the field. */
export function checkScript(data: unknown, file: string): Script {
  const object = Array.isArray(data) ? { moves: data } : data;
  if (typeof object !== 'object' || object === null || !Array.isArray((object as { moves?: unknown }).moves))
    throw new FileFormatError(file, undefined, 'expected an object with a "moves" array, or an array of moves');
  const { family, moves } = object as { family?: unknown; moves: unknown[] };
  if (family !== undefined && (typeof family !== 'string' || !/^[A-Za-z0-9_.]+$/.test(family))) {
    const found = `found ${showValue(family)}`;
    throw new FileFormatError(
      file,
      undefined,
      `expected "family" to be a word of letters, digits, "_" or ".", ${found}`,
    );
  }
  for (const [i, move] of moves.entries()) checkMove(move, `${file}: move ${i}`);
  return { family: family ?? null, moves: moves as ScriptMove[] };
}

function checkMove(move: unknown, where: string): void {
  const bad = (what: string, found: unknown): never => {
    const shown = showValue(typeof found === 'object' ? JSON.stringify(found) : found);
    throw new FileFormatError(where, undefined, `expected ${what}, found ${shown}`);
  };
  if (typeof move !== 'object' || move === null || Array.isArray(move)) bad('an object', move);
  const m = move as Record<string, unknown>;
  for (const key of Object.keys(m)) if (!MOVE_KEYS.includes(key)) bad(`one of the fields ${MOVE_KEYS.join(', ')}`, key);
  for (const [key, what, ok] of MOVE_CHECKS) if (m[key] !== undefined && !ok(m[key])) bad(what, m[key]);
  for (const edit of (m.edits ?? []) as (Record<string, unknown> | null)[]) {
    const ok =
      typeof edit?.path === 'string' &&
      edit.path !== '' &&
      ((typeof edit.content === 'string' && edit.delete === undefined) ||
        (edit.delete === true && edit.content === undefined));
    if (!ok) bad('each edit to be {"path", "content"} or {"path", "delete": true}', edit);
  }
}

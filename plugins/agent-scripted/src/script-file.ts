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

export interface Script {
  family: string | null;
  moves: ScriptMove[];
}

const MOVE_KEYS = new Set(['answer', 'stderr', 'edits', 'commit', 'sleep_ms', 'wait_for', 'hang', 'exit', 'dry']);
const DRY_KINDS = new Set(['quota', 'rate-limit', 'overload']);

/** Read and check a script file: `{"family": F, "moves": [...]}` or a bare array of moves. */
export function readScript(file: string): Script {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new FileFormatError(file, undefined, `cannot read the script: ${(cause as Error).message}`, { cause });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new FileFormatError(file, undefined, `expected JSON, found a parse error: ${(cause as Error).message}`, {
      cause,
    });
  }
  return checkScript(data, file);
}

/** Check parsed script data; errors name the file, the move and the field. */
export function checkScript(data: unknown, file: string): Script {
  const object = Array.isArray(data) ? { moves: data } : data;
  if (typeof object !== 'object' || object === null || !Array.isArray((object as { moves?: unknown }).moves)) {
    throw new FileFormatError(file, undefined, 'expected an object with a "moves" array, or an array of moves');
  }
  const { family, moves } = object as { family?: unknown; moves: unknown[] };
  if (family !== undefined && (typeof family !== 'string' || !/^[A-Za-z0-9_.]+$/.test(family))) {
    throw new FileFormatError(
      file,
      undefined,
      `expected "family" to be a word of letters, digits, "_" or ".", found ${showValue(family)}`,
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
  for (const key of Object.keys(m)) if (!MOVE_KEYS.has(key)) bad(`one of the fields ${[...MOVE_KEYS].join(', ')}`, key);
  if (m.stderr !== undefined && typeof m.stderr !== 'string') bad('"stderr" to be a string', m.stderr);
  if (m.commit !== undefined && (typeof m.commit !== 'string' || m.commit === ''))
    bad('"commit" to be a non-empty message', m.commit);
  if (m.sleep_ms !== undefined && !(typeof m.sleep_ms === 'number' && m.sleep_ms >= 0 && Number.isFinite(m.sleep_ms)))
    bad('"sleep_ms" to be a non-negative number', m.sleep_ms);
  const name = typeof m.wait_for === 'string' && /^[^/\\]+$/.test(m.wait_for) && m.wait_for !== '..';
  if (m.wait_for !== undefined && !name) bad('"wait_for" to be a file name in SCRIPT.state/', m.wait_for);
  if (m.hang !== undefined && typeof m.hang !== 'boolean') bad('"hang" to be a boolean', m.hang);
  if (m.dry !== undefined && !DRY_KINDS.has(m.dry as string))
    bad(`"dry" to be one of ${[...DRY_KINDS].join(', ')}`, m.dry);
  if (m.exit !== undefined && !(Number.isInteger(m.exit) && (m.exit as number) >= 0 && (m.exit as number) <= 255))
    bad('"exit" to be an integer from 0 to 255', m.exit);
  if (m.edits !== undefined) {
    if (!Array.isArray(m.edits)) bad('"edits" to be an array', m.edits);
    for (const edit of m.edits as unknown[]) {
      const e = edit as Record<string, unknown> | null;
      const ok =
        typeof e === 'object' &&
        e !== null &&
        typeof e.path === 'string' &&
        e.path !== '' &&
        ((typeof e.content === 'string' && e.delete === undefined) || (e.delete === true && e.content === undefined));
      if (!ok) bad('each edit to be {"path", "content"} or {"path", "delete": true}', edit);
    }
  }
}

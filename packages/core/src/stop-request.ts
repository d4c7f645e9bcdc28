// Stop requests (CONTRACT section 2, the `stop` file): none, at-ledger, at-leaf, now, or unreadable.
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError, showValue } from './errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { ensureStateDir } from './state-dir.js';

export const STOP_MODES = ['at-ledger', 'at-leaf', 'now'] as const;
export type StopMode = (typeof STOP_MODES)[number];

export type StopRequest =
  | { kind: 'none' }
  | { kind: 'requested'; mode: StopMode }
  | { kind: 'unreadable'; reason: string };

/** Read the stop file: a missing file is none; a file we cannot read or do not understand is unreadable. */
export function readStopRequest(stopFile: string): StopRequest {
  let text: string;
  try {
    text = readFileSync(stopFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: `${stopFile}: ${code ?? String(error)}` };
  }
  const mode = text.trim();
  if ((STOP_MODES as readonly string[]).includes(mode)) return { kind: 'requested', mode: mode as StopMode };
  const reason = `${stopFile}: expected one of ${STOP_MODES.join(', ')}, got ${showValue(text.slice(0, 80))}`;
  return { kind: 'unreadable', reason };
}

export function requestStop(stopFile: string, mode: string): StopMode {
  if (!(STOP_MODES as readonly string[]).includes(mode))
    throw new UsageError(`Expected a stop MODE, one of ${STOP_MODES.join(', ')}, got ${showValue(mode)}`);
  ensureStateDir(dirname(stopFile));
  writeFileAtomic(stopFile, `${mode}\n`);
  return mode as StopMode;
}

export function clearStop(stopFile: string): void {
  rmSync(stopFile, { force: true });
}

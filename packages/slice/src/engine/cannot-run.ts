// A failed proof is red unless the supervisor's status, then a line only the environment prints, says it could not run.
import { constants } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { formatSeconds, showText, type ExitStatus } from '@leap/core';

export interface ProofEnd {
  status: ExitStatus;
  code: number;
  signal: string | null;
  error: string | null;
  timeoutMs: number;
  idleMs: number;
}

// Lines no test prints of its own failure: the system or the sandbox refusing a write, bwrap, a runner missing.
const CANNOT_RUN: readonly RegExp[] = [
  /\bEROFS\b|read-only file system/i,
  /\bENOSPC\b|no space left on device/i,
  /^bwrap: /,
  /^npm (?:ERR!|error) code E(?!LIFECYCLE)[A-Z0-9_]+/,
  /^\S*python[0-9.]*: No module named /,
  /^\S*(?:sh|bash|dash|zsh)(?:: line \d+)?: (?:\d+: )?\S+: (?:command )?not found$/,
];

const FS_ERROR = new RegExp(
  /\bE(?:NOENT|NOTDIR|ACCES|PERM)\b|/.source +
    /no such file or directory|permission denied|not a directory|operation not permitted/.source,
  'i',
);
const QUOTED_PATH = /['"`](\/[^'"`]+)['"`]/g;
const inside = (path: string, place: string) => path === place || path.startsWith(`${place}/`);
const onTheirs = (line: string, theirs: readonly string[]) =>
  [...line.matchAll(QUOTED_PATH)].some((m) => theirs.some((p) => inside(m[1] as string, p)));

// Each line trimmed, its colours dropped and its other controls escaped: a reason is one line of plain text.
const lines = (text: string) =>
  stripVTControlCharacters(text)
    .split('\n')
    .map((l) => showText(l.trim()))
    .filter((l) => l !== '');

/** `theirs`: linked dependencies, not the ball's (Node's mkdir says ENOENT where the sandbox made them read-only). */
function cannotRunLine(out: string, err: string, theirs: readonly string[]): string | null {
  for (const line of [...lines(err), ...lines(out)]) {
    if (CANNOT_RUN.some((re) => re.test(line))) return line;
    if (FS_ERROR.test(line) && onTheirs(line, theirs)) return line;
  }
  return null;
}

const WATCH = 'a test runner in watch mode waits for changes (use its run form: `vitest run`, `jest` without --watch)';

const signalName = (n: number) => Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? `signal ${n}`;

/** Why the proof could not run, in a phrase; null: it ran, and its exit is its tests' verdict. */
export function cannotRun(end: ProofEnd, out: string, err: string, theirs: readonly string[] = []): string | null {
  const line = cannotRunLine(out, err, theirs);
  const said = line === null ? '' : ` (${line})`;
  switch (end.status) {
    case 'failed-start':
      return end.error ?? (end.code === 127 ? 'its program was not found' : 'its program cannot be executed');
    case 'killed-timeout':
      return `it ran past its time limit (${formatSeconds(end.timeoutMs)}) and was ended`;
    case 'killed-stuck':
      return `it made no progress (no output, no CPU) for ${formatSeconds(end.idleMs)} and was ended: ${WATCH}`;
    case 'killed-external':
      return `it was ended by ${end.signal ?? 'a signal'} (a crash, or a kill from outside the run)`;
    case 'exited':
      if (end.code === 127) return `a program it runs was not found${said}`;
      if (end.code === 126) return `a program it runs cannot be executed${said}`;
      if (end.code > 128 && end.code < 160) return `it was killed by ${signalName(end.code - 128)}${said}`;
      return end.code === 0 ? null : line;
    default:
      return 'it was interrupted: the run was asked to stop';
  }
}

export const interrupted = (status: ExitStatus) => ['killed-signal', 'killed-stop', 'refused-stop'].includes(status);

const LINE_CHARS = 240;
const ERROR_LINE = new RegExp(
  /\b(?:error|fail(?:ed|ure|s)?|exception|panic(?:ked)?|traceback|assert(?:ion)?|denied|cannot|unable)\b/.source +
    /|\bE[A-Z]{3,}\b|not found/.source,
  'i',
);

/** The output lines a reason quotes: the cannot-run line, error lines, each stream's last two; none `said` holds. */
export function causeLines(out: string, err: string, said = '', theirs: readonly string[] = []): string {
  const [o, e] = [lines(out), lines(err)];
  const kept = new Set<string>();
  const cause = cannotRunLine(out, err, theirs);
  if (cause !== null) kept.add(cause);
  for (const line of [...e, ...o]) {
    if (kept.size >= 3) break;
    if (ERROR_LINE.test(line)) kept.add(line);
  }
  for (const line of [...o.slice(-2), ...e.slice(-2)]) kept.add(line);
  return [...kept]
    .filter((l) => !said.includes(l))
    .map((l) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}...` : l))
    .join(' | ');
}

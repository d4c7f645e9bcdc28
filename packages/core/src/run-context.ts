// The run context a command reads from its environment (CONTRACT section 3).
import { readFileIfExists } from './read-file.js';
import { UsageError, showValue } from './errors.js';
import { parseDuration } from './duration.js';
import { checkIssue, statePaths } from './state-dir.js';

export interface RunContext {
  issue: number | null;
  step: string | null;
  testCmd: string | null;
  skillCommit: string | null;
  /** The leaf timeout in ms; 0 is no limit. */
  timeoutMs: number;
  timeoutSource: string;
}

/** A leaf's time limit when nothing sets one (VERI_TIMEOUT, the issue's timeout file, --timeout). */
export const DEFAULT_TIMEOUT_S = 900;
/** The idle limit `leap tdd run` gives its leaves when nothing sets one (the supervisor alone has none). */
export const DEFAULT_IDLE_TIMEOUT_S = 300;

function readTrimmed(file: string): string | null {
  return readFileIfExists(file)?.trim() ?? null;
}

export interface EventRunContext {
  issue: number | null;
  step: string | null;
  skillCommit: string | null;
}

/** Without the timeout, so a command that has already acted cannot fail on a timeout it does not use. */
export function readEventContext(stateDir: string, env: NodeJS.ProcessEnv = process.env): EventRunContext {
  const issue = envIssue(env);
  let skillCommit = env.VERI_SKILL_COMMIT ?? null;
  if ((skillCommit === null || skillCommit === '') && issue !== null && env.VERI_NEW_SKILL !== '1') {
    skillCommit = readTrimmed(statePaths(stateDir).skillCommit(issue));
  }
  return { issue, step: env.VERI_STEP ?? null, skillCommit: skillCommit === '' ? null : skillCommit };
}

/** `VERI_ISSUE` as an issue number, or null when it is unset or empty; a UsageError naming it when it is not one. */
export function envIssue(env: NodeJS.ProcessEnv = process.env): number | null {
  const raw = env.VERI_ISSUE;
  return raw === undefined || raw === '' ? null : checkIssue(raw, 'VERI_ISSUE');
}

/** For records written after the command acted: a bad `VERI_ISSUE` loses the record its issue, nothing else. */
export function readEventContextAnyway(stateDir: string, env: NodeJS.ProcessEnv = process.env): EventRunContext {
  try {
    return readEventContext(stateDir, env);
  } catch {
    return envEventContext(env);
  }
}

/** The run as the environment says it, without reading VERI_ISSUE. */
export function envEventContext(env: NodeJS.ProcessEnv = process.env): EventRunContext {
  return { issue: null, step: env.VERI_STEP ?? null, skillCommit: env.VERI_SKILL_COMMIT || null };
}

/** A leaf's time limit and where it came from (`VERI_TIMEOUT`, the issue's timeout file, or `default`). */
export interface TimeLimit {
  /** In ms; 0 is no limit. */
  ms: number;
  source: string;
}

/** `VERI_TIMEOUT`, else the issue's timeout file (a slice has no issue), else 900 s; a bad value is a UsageError. */
export function readTimeLimit(
  stateDir: string | null,
  issue: number | null,
  env: NodeJS.ProcessEnv = process.env,
): TimeLimit {
  const fromEnv = env.VERI_TIMEOUT;
  if (fromEnv !== undefined && fromEnv !== '')
    return { ms: parseDuration('VERI_TIMEOUT', fromEnv), source: 'VERI_TIMEOUT' };
  if (stateDir !== null && issue !== null) {
    const file = statePaths(stateDir).timeout(issue);
    const text = readTrimmed(file);
    if (text !== null) return { ms: parseDuration(file, text), source: file };
  }
  return { ms: DEFAULT_TIMEOUT_S * 1000, source: 'default' };
}

export function readRunContext(stateDir: string, env: NodeJS.ProcessEnv = process.env): RunContext {
  const { issue, step, skillCommit } = readEventContext(stateDir, env);
  const { ms, source } = readTimeLimit(stateDir, issue, env);
  return { issue, step, testCmd: env.VERI_TEST_CMD ?? null, skillCommit, timeoutMs: ms, timeoutSource: source };
}

/** Read a non-negative duration variable, or the default (ms) when it is unset or empty. */
export function readDurationVar(env: NodeJS.ProcessEnv, name: string, defaultMs: number): number {
  const value = env[name];
  return value === undefined || value === '' ? defaultMs : parseDuration(name, value);
}

export function checkOneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Expected ${what} to be one of ${allowed.join(', ')}, got ${showValue(value)}`);
}

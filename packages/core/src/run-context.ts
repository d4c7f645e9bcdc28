// The run context a command reads from its environment (CONTRACT section 3).
import { readFileIfExists } from './read-file.js';
import { orElse, showValue, UsageError } from './errors.js';
import { parseDuration } from './duration.js';
import { checkIssue, statePaths } from './state-dir.js';
import type { EventContext } from './events/event-log.js';

/** What a command knows of its run; `timeoutMs` is the leaf timeout (0: none). */
export type RunContext = ReturnType<typeof readRunContext>;

/** A leaf's time limit when nothing sets one (VERI_TIMEOUT, the issue's timeout file, --timeout). */
export const DEFAULT_TIMEOUT_S = 900;
/** The idle limit `leap tdd run` gives its leaves when nothing sets one (the supervisor alone has none). */
export const DEFAULT_IDLE_TIMEOUT_S = 300;

/** Without the timeout, so a command that has already acted cannot fail on a timeout it does not use. */
export function readEventContext(stateDir: string, env: NodeJS.ProcessEnv = process.env): EventContext {
  const issue = envIssue(env);
  let skillCommit = env.VERI_SKILL_COMMIT ?? null;
  if ((skillCommit === null || skillCommit === '') && issue !== null && env.VERI_NEW_SKILL !== '1')
    skillCommit = readFileIfExists(statePaths(stateDir).skillCommit(issue))?.trim() ?? null;
  return { issue, step: env.VERI_STEP ?? null, skillCommit: skillCommit === '' ? null : skillCommit };
}

export const envIssue = (env: NodeJS.ProcessEnv = process.env): number | null =>
  env.VERI_ISSUE ? checkIssue(env.VERI_ISSUE, 'VERI_ISSUE') : null;

/** For records written after the command acted: a bad `VERI_ISSUE` loses the record its issue, nothing else. */
export const readEventContextAnyway = (stateDir: string, env: NodeJS.ProcessEnv = process.env): EventContext =>
  orElse(() => readEventContext(stateDir, env), null) ?? envEventContext(env);

export function envEventContext(env: NodeJS.ProcessEnv = process.env): EventContext {
  return { issue: null, step: env.VERI_STEP ?? null, skillCommit: env.VERI_SKILL_COMMIT || null };
}

export type TimeLimit = ReturnType<typeof readTimeLimit>;

/** `VERI_TIMEOUT`, else the issue's timeout file (a slice has no issue), else 900 s; a bad value is a UsageError. */
export function readTimeLimit(stateDir: string | null, issue: number | null, env = process.env) {
  if (env.VERI_TIMEOUT) return { ms: parseDuration('VERI_TIMEOUT', env.VERI_TIMEOUT), source: 'VERI_TIMEOUT' };
  if (stateDir !== null && issue !== null) {
    const file = statePaths(stateDir).timeout(issue);
    const text = readFileIfExists(file)?.trim();
    if (text !== undefined) return { ms: parseDuration(file, text), source: file };
  }
  return { ms: DEFAULT_TIMEOUT_S * 1000, source: 'default' };
}

export function readRunContext(stateDir: string, env: NodeJS.ProcessEnv = process.env) {
  const { issue, step, skillCommit } = readEventContext(stateDir, env);
  const { ms, source } = readTimeLimit(stateDir, issue, env);
  return { issue, step, testCmd: env.VERI_TEST_CMD ?? null, skillCommit, timeoutMs: ms, timeoutSource: source };
}

export function readDurationVar(env: NodeJS.ProcessEnv, name: string, defaultMs: number): number {
  const value = env[name];
  return value === undefined || value === '' ? defaultMs : parseDuration(name, value);
}

export function checkOneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Expected ${what} to be one of ${allowed.join(', ')}, got ${showValue(value)}`);
}

// The run context a command reads from its environment (CONTRACT section 3).
import { readFileIfExists } from './read-file.js';
import { UsageError, showValue } from './errors.js';
import { parseDuration } from './duration.js';
import { checkIssue, statePaths } from './state-dir.js';

/** What every event and every leaf carries about the run. */
export interface RunContext {
  issue: number | null;
  step: string | null;
  testCmd: string | null;
  skillCommit: string | null;
  /** The leaf timeout in ms; 0 is no limit. */
  timeoutMs: number;
  /** Where the timeout came from, for messages. */
  timeoutSource: string;
}

export const DEFAULT_TIMEOUT_S = 900;

function readTrimmed(file: string): string | null {
  return readFileIfExists(file)?.trim() ?? null;
}

/** What an event copies from the run: issue, step and skill commit. */
export interface EventRunContext {
  issue: number | null;
  step: string | null;
  skillCommit: string | null;
}

/**
 * Read only what events carry (`VERI_ISSUE`, `VERI_STEP`, the skill commit), without the timeout,
 * so a command that has already acted cannot fail on a timeout it does not use.
 */
export function readEventContext(stateDir: string, env: NodeJS.ProcessEnv = process.env): EventRunContext {
  const rawIssue = env.VERI_ISSUE;
  const issue = rawIssue === undefined || rawIssue === '' ? null : checkIssue(rawIssue, 'VERI_ISSUE');
  let skillCommit = env.VERI_SKILL_COMMIT ?? null;
  if ((skillCommit === null || skillCommit === '') && issue !== null && env.VERI_NEW_SKILL !== '1') {
    skillCommit = readTrimmed(statePaths(stateDir).skillCommit(issue));
  }
  return { issue, step: env.VERI_STEP ?? null, skillCommit: skillCommit === '' ? null : skillCommit };
}

/** Read the run context: `VERI_ISSUE`, `VERI_STEP`, `VERI_TEST_CMD`, `VERI_SKILL_COMMIT`, `VERI_TIMEOUT` and the issue's files. */
export function readRunContext(stateDir: string, env: NodeJS.ProcessEnv = process.env): RunContext {
  const { issue, step, skillCommit } = readEventContext(stateDir, env);
  const paths = statePaths(stateDir);
  let timeoutMs = DEFAULT_TIMEOUT_S * 1000;
  let timeoutSource = 'default';
  const fromEnv = env.VERI_TIMEOUT;
  if (fromEnv !== undefined && fromEnv !== '') {
    timeoutMs = parseDuration('VERI_TIMEOUT', fromEnv);
    timeoutSource = 'VERI_TIMEOUT';
  } else if (issue !== null) {
    const file = paths.timeout(issue);
    const text = readTrimmed(file);
    if (text !== null) {
      timeoutMs = parseDuration(file, text);
      timeoutSource = file;
    }
  }
  return { issue, step, testCmd: env.VERI_TEST_CMD ?? null, skillCommit, timeoutMs, timeoutSource };
}

/** Read a non-negative duration variable, or the default (ms) when it is unset or empty. */
export function readDurationVar(env: NodeJS.ProcessEnv, name: string, defaultMs: number): number {
  const value = env[name];
  return value === undefined || value === '' ? defaultMs : parseDuration(name, value);
}

/** Throw a UsageError unless `value` is one of `allowed`. */
export function checkOneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Expected ${what} to be one of ${allowed.join(', ')}, got ${showValue(value)}`);
}

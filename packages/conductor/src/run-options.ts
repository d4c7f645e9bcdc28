// Options recorded in the run file, so `leap tdd run --issue N` alone resumes with them (CONTRACT section 9).
import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_IDLE_TIMEOUT_S, parseDuration, shellWord } from '@leap/core';
import type { TddRunOptions } from './types.js';

/** What a run records of how it was started: only what was given (an option, or the project file). */
export interface RecordedOptions
  extends Omit<TddRunOptions, 'cwd' | 'issue' | 'planFile' | 'tracker' | 'trackerName' | 'env' | 'progress' | 'warn'> {
  tracker?: 'local' | 'github';
  /** Absolute; read only while HEAD has no ledger, so a start that bailed before its plan resumes with it. */
  plan?: string;
}

/** Each recorded option's flag on `leap tdd run`, in the order the narration lists them. */
export const OPTION_FLAGS: { readonly [K in keyof Required<RecordedOptions>]: string } = {
  agentsFile: '--agents',
  developer: '--developer',
  verifier: '--verifier',
  planner: '--planner',
  testCmd: '--test-cmd',
  revisions: '--revisions',
  timeout: '--timeout',
  idleTimeout: '--idle-timeout',
  maxCost: '--max-cost',
  tracker: '--tracker',
  tests: '--tests',
  allowSameFamily: '--allow-same-family',
  notify: '--notify',
  sandbox: '--sandbox',
  plan: '--plan',
};

export const DEFAULT_IDLE_TIMEOUT = `${DEFAULT_IDLE_TIMEOUT_S}s`;

/** The options given to this start, as a run records them (the agents file made absolute, durations checked). */
export function givenOptions(options: TddRunOptions): RecordedOptions {
  const given: RecordedOptions = {
    agentsFile:
      options.agentsFile === undefined
        ? undefined
        : isAbsolute(options.agentsFile)
          ? options.agentsFile
          : resolve(options.cwd, options.agentsFile),
    developer: options.developer,
    verifier: options.verifier,
    planner: options.planner,
    testCmd: options.testCmd,
    revisions: options.revisions,
    timeout: options.timeout,
    idleTimeout: options.idleTimeout,
    maxCost: options.maxCost,
    tracker: options.tracker === undefined ? options.trackerName : undefined,
    tests: options.tests,
    allowSameFamily: options.allowSameFamily || undefined,
    notify: options.notify,
    sandbox: options.sandbox,
    plan: options.planFile === undefined ? undefined : resolve(options.cwd, options.planFile),
  };
  if (given.timeout !== undefined) parseDuration('--timeout', given.timeout);
  if (given.idleTimeout !== undefined) parseDuration('--idle-timeout', given.idleTimeout);
  for (const key of Object.keys(given) as (keyof RecordedOptions)[]) if (given[key] === undefined) delete given[key];
  return given;
}

export function mergeOptions(
  recorded: RecordedOptions | undefined,
  given: RecordedOptions,
): { options: RecordedOptions; replaced: string[] } {
  const before = recorded ?? {};
  const options: RecordedOptions = { ...before, ...given };
  const replaced: string[] = [];
  for (const key of Object.keys(OPTION_FLAGS) as (keyof RecordedOptions)[]) {
    if (given[key] === undefined || before[key] === undefined) continue;
    if (JSON.stringify(given[key]) === JSON.stringify(before[key])) continue;
    replaced.push(`${OPTION_FLAGS[key]} ${show(given[key])} replaces the recorded ${show(before[key])}`);
  }
  return { options, replaced };
}

/** The recorded options as flags, for the narration of a resume: `--agents /x/agents.json --developer dev`. */
export function describeOptions(options: RecordedOptions): string {
  const parts: string[] = [];
  for (const key of Object.keys(OPTION_FLAGS) as (keyof RecordedOptions)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (value === true) parts.push(OPTION_FLAGS[key]);
    else if (key === 'notify' && Array.isArray(value)) parts.push(`${OPTION_FLAGS[key]} ${shellWord(value.join(' '))}`);
    else if (Array.isArray(value)) for (const v of value) parts.push(`${OPTION_FLAGS[key]} ${shellWord(v)}`);
    else parts.push(`${OPTION_FLAGS[key]} ${shellWord(String(value))}`);
  }
  return parts.join(' ');
}

function show(value: unknown): string {
  return Array.isArray(value) ? value.map((v) => shellWord(String(v))).join(' ') : shellWord(String(value));
}

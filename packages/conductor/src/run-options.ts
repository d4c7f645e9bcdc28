// `leap tdd run`'s input, checked before anything is touched; its options recorded in the run file, so
// `leap tdd run --issue N` alone resumes with them (CONTRACT section 9).
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { UsageError, checkIssue, orElse, parseDuration, resolveStateDir, shellWord, showValue } from '@leap/core';
import { statePaths } from '@leap/core';
import { readCriteria } from '@leap/core/ledger';
import { chooseRunSandbox } from './leaf-sandboxes.js';
import { readPlan } from './plan.js';
import { PROJECT_CONFIG_FILE, configOptions, readProjectConfig } from './project-config.js';
import { resolveRunAgents } from './run-agents.js';
import { checkPin, readJournal, repoRootOf } from './run-files.js';
import type { TddRunOptions } from './index.js';

/** What a run records of how it was started: only what was given (an option, or the project file). */
export interface RecordedOptions
  extends Omit<TddRunOptions, 'cwd' | 'issue' | 'planFile' | 'tracker' | 'trackerName' | 'env' | 'progress' | 'warn'> {
  tracker?: 'local' | 'github';
  /** Absolute; read only while HEAD has no ledger, so a start that bailed before its plan resumes with it. */
  plan?: string;
}

/** Each recorded option's flag on `leap tdd run`, in the order the narration lists them. */
const OPTION_FLAGS: { readonly [K in keyof Required<RecordedOptions>]: string } = {
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

/** The options given to this start, as a run records them (the agents file made absolute, durations checked). */
export function givenOptions(options: TddRunOptions): RecordedOptions {
  const { agentsFile, cwd } = options;
  const given: RecordedOptions = {
    agentsFile: agentsFile === undefined || isAbsolute(agentsFile) ? agentsFile : resolve(cwd, agentsFile),
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
    plan: options.planFile === undefined ? undefined : resolve(cwd, options.planFile),
  };
  if (given.timeout !== undefined) parseDuration('--timeout', given.timeout);
  if (given.idleTimeout !== undefined) parseDuration('--idle-timeout', given.idleTimeout);
  return definedOnly(given);
}

export const definedOnly = <T extends object>(options: T): T =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;

export function mergeOptions(recorded: RecordedOptions | undefined, given: RecordedOptions) {
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

export type ConductorSetup = Awaited<ReturnType<typeof checkInput>>;

export async function checkInput(given: TddRunOptions) {
  const env = given.env ?? process.env;
  const issue = checkIssue(given.issue, '--issue');
  const root = repoRootOf(given.cwd);
  if (given.revisions !== undefined && (!Number.isSafeInteger(given.revisions) || given.revisions < 0))
    throw new UsageError(`Expected --revisions to be a non-negative integer, got ${showValue(given.revisions)}`);
  if (given.maxCost !== undefined && !(Number.isFinite(given.maxCost) && given.maxCost >= 0)) {
    throw new UsageError(
      `Expected --max-cost to be a non-negative number of US dollars, got ${showValue(given.maxCost)}`,
    );
  }
  const stateDir = resolveStateDir(env, root);
  const pin = checkPin(statePaths(stateDir), issue, env);
  const recordedBefore = readJournal(statePaths(stateDir), issue)?.options;
  const { options: recorded, replaced } = mergeOptions(recordedBefore, givenOptions(given));
  const project = readProjectConfig(root);
  const effective: RecordedOptions = { ...(project === null ? {} : configOptions(project.config, root)), ...recorded };
  const sources: Partial<Record<keyof RecordedOptions, string>> = {};
  for (const key of Object.keys(effective) as (keyof RecordedOptions)[])
    sources[key] = key in recorded ? OPTION_FLAGS[key] : PROJECT_CONFIG_FILE;
  const agents = resolveRunAgents(effective, env);
  const { globToRegExp } = await import('@leap/verify');
  const testGlobs = (effective.tests ?? []).map((glob) => globToRegExp(glob));
  const tracker =
    given.tracker ??
    (recorded.tracker === 'github'
      ? (await import('@leap/tracker-github')).createGithubTracker({ cwd: root, env })
      : (await import('@leap/tracker-local')).createLocalTracker({ stateDir, cwd: root, env }));
  const issueData = await tracker.readIssue(issue);
  if (issueData.criteria.length === 0) {
    throw new UsageError(
      `issue ${issue} has no acceptance criteria: expected a "## Acceptance criteria" section ` +
        'with one item a criterion (- [ ] ...), so each step has a criterion to meet',
    );
  }
  checkTickable(tracker.issueFile?.(issue) ?? null, issue);
  // A recorded plan file that is gone is no error: it is read only while HEAD has no ledger.
  const planText =
    effective.plan !== undefined && (given.planFile !== undefined || existsSync(effective.plan))
      ? readPlan(effective.plan, issueData)
      : null;
  return {
    root,
    issue,
    stateDir,
    env,
    tracker,
    issueData,
    agents,
    revisions: effective.revisions ?? 2,
    planText,
    progress: given.progress ?? (() => {}),
    warn: given.warn ?? given.progress ?? (() => {}),
    testGlobs,
    recorded,
    effective,
    sources,
    replaced,
    sandbox: chooseRunSandbox(env, recorded.sandbox, project?.config),
    pin,
  };
}

// A criterion without a checkbox (`1. text`) is refused now, not at its tick after a whole step.
function checkTickable(file: string | null, issue: number): void {
  const criteria = file === null ? [] : orElse(() => readCriteria(readFileSync(file, 'utf8'), file), []);
  const bad = criteria.find((c) => !c.checkable);
  if (bad !== undefined) {
    throw new UsageError(
      `${file}:${bad.line}: criterion ${bad.index} of issue ${issue} has no checkbox to tick ` +
        `(${JSON.stringify(bad.text)}): ` +
        `write it as "- [ ] ${bad.text}" or "1. [ ] ${bad.text}", so the run can tick it when its steps are done`,
    );
  }
}

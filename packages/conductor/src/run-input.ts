// `leap tdd run`'s input, checked before anything is touched: the repository, the issue, the plan file, the agents.
import { existsSync, readFileSync } from 'node:fs';
import { UsageError, checkIssue, resolveStateDir, showValue, statePaths } from '@leap/core';
import { readCriteria } from '@leap/core/ledger';
import type { ConductorSetup } from './conductor.js';
import { chooseRunSandbox } from './leaf-sandboxes.js';
import { checkPlanFile } from './plan.js';
import { PROJECT_CONFIG_FILE, configOptions, readProjectConfig } from './project-config.js';
import { resolveRunAgents } from './run-agents.js';
import { checkPin, readJournal, repoRootOf } from './run-files.js';
import { OPTION_FLAGS, givenOptions, mergeOptions, type RecordedOptions } from './run-options.js';
import type { TddRunOptions } from './types.js';

export async function checkInput(given: TddRunOptions): Promise<ConductorSetup> {
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
  const sources: ConductorSetup['sources'] = {};
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
    deadConductor: null,
    testGlobs,
    recorded,
    effective,
    sources,
    replaced,
    sandbox: chooseRunSandbox(recorded.sandbox, project?.config, env),
    pin,
  };
}

function readPlan(file: string, issue: ConductorSetup['issueData']): ConductorSetup['planText'] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the plan file ${file}: ${(cause as Error).message}`, { cause });
  }
  checkPlanFile(text, file, issue);
  return { text, file };
}

// A criterion without a checkbox (`1. text`) is refused now, not at its tick after a whole step.
function checkTickable(file: string | null, issue: number): void {
  if (file === null) return;
  let criteria: ReturnType<typeof readCriteria>;
  try {
    criteria = readCriteria(readFileSync(file, 'utf8'), file);
  } catch {
    return;
  }
  const bad = criteria.find((c) => !c.checkable);
  if (bad !== undefined) {
    throw new UsageError(
      `${file}:${bad.line}: criterion ${bad.index} of issue ${issue} has no checkbox to tick ` +
        `(${JSON.stringify(bad.text)}): ` +
        `write it as "- [ ] ${bad.text}" or "1. [ ] ${bad.text}", so the run can tick it when its steps are done`,
    );
  }
}

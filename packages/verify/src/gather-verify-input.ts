// Only the ledger, the issue, the step's tests and the repository: never the developer's output or commit messages.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TrackerPlugin, UsageError, findRepoRoot, readFileIfExists, resolveStateDir } from '@leap/core';
import { showValue, statePaths } from '@leap/core';
import { findStep, parseLedger, type LedgerStep } from '@leap/core/ledger';
import { createLocalTracker } from '@leap/tracker-local';
import { readBaseDiff, readCommitDiff } from './base-diff.js';
import { isCommit } from './git.js';
import type { Phase } from './phase.js';
import { readStepSpec } from './step-spec.js';
import { findStepTests, type StepTests } from './step-tests.js';
import type { VerifyPromptInput } from './verify-prompt.js';

export interface GatherOptions {
  phase: Phase;
  step: string | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  issue: number | null;
  ledgerFile?: string;
  specFile?: string;
  testGlobs?: readonly string[];
  /** Globs of files that hold tests beside the conventions (a conductor's `--tests`, e.g. `src/**\/*.rs`). */
  testFiles?: readonly string[];
  base?: string;
  tracker?: TrackerPlugin;
  head?: string;
}

export interface GatheredInput {
  input: VerifyPromptInput;
  repo: string;
  stateDir: string;
  step: string;
  ledgerStep: LedgerStep | null;
  tests: StepTests;
}

/** Check the step against the ledger and read the spec and the tests; bad input is a UsageError (exit 2). */
export async function gatherVerifyInput(options: GatherOptions): Promise<GatheredInput> {
  const { phase, issue, step, base } = options;
  if (step === undefined) throw new UsageError('missing --step TITLE (the ledger step to verify)');
  const repo = findRepoRoot(options.cwd);
  if (repo === null) throw new UsageError(`not in a git repository: ${options.cwd}`);
  const stateDir = resolveStateDir(options.env, options.cwd);
  const ledgerStep = readLedgerStep(stateDir, issue, step, options.ledgerFile, options.specFile !== undefined);
  if (phase === 'refactor' && base === undefined)
    throw new UsageError('the refactor phase needs --base SHA (the commit the refactor started from)');
  if (base !== undefined && phase !== 'refactor')
    throw new UsageError(`--base belongs to the refactor phase, not ${phase}`);
  if (base !== undefined && (!/^[0-9a-f]{7,64}$/.test(base) || (base !== options.head && !isCommit(repo, base))))
    throw new UsageError(`--base: expected the hexadecimal sha of a commit of ${repo}, got ${showValue(base)}`);
  const tracker = options.tracker ?? createLocalTracker({ stateDir });
  const criterion = ledgerStep?.criterion ?? null;
  const spec = await readStepSpec({ tracker, issue, criterion, specFile: options.specFile });
  const { testGlobs: globs, testFiles } = options;
  const eventsFile = statePaths(stateDir).events;
  const tests = findStepTests({ phase, repo, step, issue, eventsFile, globs, testFiles });
  const input: VerifyPromptInput = {
    phase,
    stepTitle: step,
    spec,
    tests: tests.files.map((path) => ({ path, content: readFileIfExists(join(repo, path)) })),
    repoPath: repo,
    baseCommit: base ?? null,
    baseDiff: base === undefined ? null : readBaseDiff(repo, base),
  };
  // Red: the red commit's diff, not the whole files (which tests are new is the question); `--tests` files stay whole.
  if (phase === 'red' && tests.source === 'red-commit' && tests.redCommit !== null && tests.files.length > 0)
    input.redDiff = { commit: tests.redCommit, ...readCommitDiff(repo, tests.redCommit, tests.files) };
  return { input, repo, stateDir, step, ledgerStep, tests };
}

// The step in the ledger (`--ledger`, else the issue's); with neither, only `--spec` can stand in for it.
function readLedgerStep(stateDir: string, issue: number | null, step: string, ledgerFile?: string, hasSpec = false) {
  const file = ledgerFile ?? (issue === null ? null : statePaths(stateDir).ledger(issue));
  const how = 'set VERI_ISSUE or pass --issue N or --ledger FILE (or give --spec FILE)';
  if (file === null) {
    if (hasSpec) return null;
    throw new UsageError(`no ledger to find the step in: ${how}`);
  }
  if (!existsSync(file)) throw new UsageError(`no ledger at ${file}${issue === null ? '' : ` for issue ${issue}`}`);
  return findStep(parseLedger(readFileSync(file, 'utf8'), file), step);
}

// Only the ledger, the issue, the step's tests and the repository: never the developer's output or commit messages.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TrackerPlugin, UsageError, findRepoRoot, readFileIfExists, readRunContext } from '@leap/core';
import { resolveStateDir, showValue, statePaths } from '@leap/core';
import { findStep, parseLedger } from '@leap/core/ledger';
import { createLocalTracker } from '@leap/tracker-local';
import { gitStdout, isCommit } from './git.js';
import { readStepSpec } from './step-spec.js';
import { findStepTests, type StepTests } from './step-tests.js';
import type { BoundedDiff, Phase, VerifyPromptInput } from './verify-prompt.js';
import { buildVerifyPrompt, checkPhase } from './verify-prompt.js';

type GatherRun = { phase: Phase; step: string | undefined; cwd: string; env: NodeJS.ProcessEnv; issue: number | null };
type GatherMore = { ledgerFile?: string; specFile?: string; base?: string; tracker?: TrackerPlugin; head?: string };
export type GatherOptions = GatherRun & GatherMore & Partial<Record<'testGlobs' | 'testFiles', readonly string[]>>;

export async function gatherVerifyInput(options: GatherOptions) {
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

function readLedgerStep(stateDir: string, issue: number | null, step: string, ledgerFile?: string, hasSpec = false) {
  const file = ledgerFile ?? (issue === null ? null : statePaths(stateDir).ledger(issue));
  const how = 'set VERI_ISSUE or pass --issue N or --ledger FILE (or give --spec FILE)';
  if (file === null && hasSpec) return null;
  if (file === null) throw new UsageError(`no ledger to find the step in: ${how}`);
  if (!existsSync(file)) throw new UsageError(`no ledger at ${file}${issue === null ? '' : ` for issue ${issue}`}`);
  return findStep(parseLedger(readFileSync(file, 'utf8'), file), step);
}

type Given = { phase: string | undefined; step: string | undefined; issue?: number };
export type VerifyPromptOptions = Partial<Omit<GatherOptions, keyof Given | 'head'>> & Given;

/** `leap-verify prompt`: the prompt the verifier would get, printed and not sent (no agent, no schema loaded). */
export async function renderVerifyPrompt(options: VerifyPromptOptions): Promise<{ prompt: string; tests: StepTests }> {
  const phase = checkPhase(options.phase);
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const issue = options.issue ?? readRunContext(resolveStateDir(env, cwd), env).issue;
  const gathered = await gatherVerifyInput({ ...options, phase, cwd, env, issue });
  return { prompt: buildVerifyPrompt(gathered.input), tests: gathered.tests };
}

export const BASE_DIFF_LIMIT = 64 * 1024;

export function readBaseDiff(repo: string, base: string, limit = BASE_DIFF_LIMIT): BoundedDiff {
  return cutAt(gitStdout(repo, ['diff', '--no-color', '--no-ext-diff', '--no-renames', base]), limit);
}

/** Without the commit message (the developer's prose): the red verifier's view of which tests are new. */
export function readCommitDiff(repo: string, commit: string, paths: readonly string[], limit = BASE_DIFF_LIMIT) {
  if (paths.length === 0) return { text: '', cut: null };
  const show = ['show', '--format=', '--no-color', '--no-ext-diff', '--no-renames', commit, '--', ...paths];
  return cutAt(gitStdout(repo, show), limit);
}

function cutAt(text: string, limit: number): BoundedDiff {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, cut: null };
  const lineEnd = bytes.lastIndexOf(0x0a, limit - 1) + 1;
  const shown = lineEnd > 0 ? lineEnd : limit;
  return { text: bytes.subarray(0, shown).toString('utf8'), cut: { shown, total: bytes.length } };
}

// The conductor's public API (CONTRACT section 9): `runTdd`, what it takes and returns, and the parts others use.
import type { TrackerPlugin } from '@leap/core';
export { runTdd } from './run-tdd.js';
export { BAIL_CLASSES, bailClass, type BailCause } from './bail-causes.js';
export { readTddStatus, formatTddStatus, type TddStatus } from './status.js';
export {
  PROJECT_CONFIG_FILE,
  projectConfigJsonSchema,
  projectConfigSchema,
  readProjectConfig,
} from './project-config.js';
export type { ProjectConfig } from './project-config.js';
export { testCommandCandidates } from './detect-test-cmd.js';
export { watchModeOf, type WatchMode } from './watch-mode.js';

export interface TddRunOptions {
  /** The repository (its root or a folder inside it). */
  cwd: string;
  issue: number;
  /** `--test-cmd`; else VERI_TEST_CMD; else detected (npm test, make test, pytest, cargo test, go test ./...). */
  testCmd?: string;
  /** `--plan FILE`, in the plan format of `leap-ledger init`, instead of a planning leaf. */
  planFile?: string;
  /** Agent names (the built-ins claude, codex, gemini, or an agents file's entries). */
  developer?: string;
  verifier?: string;
  planner?: string;
  /** `--agents FILE`, as @leap/verify's loadAgentRegistry reads it (else VERI_AGENTS). */
  agentsFile?: string;
  /** `--revisions`: revision leaves a phase may have after a REJECT (default 2). */
  revisions?: number;
  /** Default: @leap/tracker-local on the repository's state folder. */
  tracker?: TrackerPlugin;
  /** `--tracker NAME` when no `tracker` is given: `local` (the default) or `github`; recorded for a resume. */
  trackerName?: 'local' | 'github';
  /** `--timeout DURATION`: each leaf's time limit (else VERI_TIMEOUT, else the issue's timeout file). */
  timeout?: string;
  /** `--idle-timeout DURATION`: no output and no CPU progress this long is killed-stuck (default 300s; `0` off). */
  idleTimeout?: string;
  /** `--tests GLOB` (repeatable): files that hold tests, beside @leap/verify's conventions. */
  tests?: string[];
  allowSameFamily?: boolean;
  /** `--max-cost USD`: bail `cost-budget` once the leaves' reported cost passes it. */
  maxCost?: number;
  /** `--notify CMD` as an argv: run on done, bail, stop and cost-budget, the event as JSON on stdin. */
  notify?: string[];
  /** `--sandbox`: else leap.config.json's `sandbox`, else LEAP_SANDBOX, else on. */
  sandbox?: 'on' | 'off';
  env?: NodeJS.ProcessEnv;
  progress?: (line: string) => void;
  /** Lines after the run's last one (the --notify outcome), so `bail: CAUSE (CLASS)` stays last; default progress. */
  warn?: (line: string) => void;
}

export type TddStepState = { title: string; state: 'todo' | 'refactor-pending' | 'done' };
export type TddCommit = { sha: string; subject: string };

export interface TddVerdict {
  step: string;
  phase: string;
  verdict: 'PASS' | 'REJECT' | 'ERROR' | 'BLOCKED' | 'flaky';
  reason: string;
}

/** How one run ended; its exit code is `exitCode`'s (run-ends.ts). */
export interface TddRunEnd {
  outcome: 'done' | 'bailed' | 'stopped';
  bail?: { cause: string; class: 'process' | 'system'; narration: string };
  /** Where a stopped run stopped: `step K "TITLE", before develop-green` and the like. */
  stoppedAt?: string;
  steps: TddStepState[];
  commits: TddCommit[];
  verdicts: TddVerdict[];
  leaves: number;
  ms: number;
  pullRequest?: { url: string };
}

/** What `runTdd` returns: the run's end with `code`, section 9's exit code of its outcome, first. */
export type TddRunResult = { code: 0 | 1 | 3 } & TddRunEnd;

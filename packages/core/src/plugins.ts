// Plugin interfaces (CONTRACT section 8): agents, trackers and runners, as types.
import type { EventOf } from './events/event-schema.js';

export type AgentRole = 'developer' | 'verifier' | 'reviewer' | 'builder' | 'planner';

export interface AgentOptions {
  role: AgentRole;
  cwd: string;
  model?: string;
  /** A JSON Schema the answer must follow, for CLIs that can enforce one. */
  answerSchema?: Record<string, unknown>;
  /** Inside the toolchain's sandbox (CONTRACT section 13), so the CLI's own, which cannot nest in it, is off. */
  sandboxed?: boolean;
}

/** A command line ready to spawn without a shell. */
export interface AgentInvocation {
  command: string;
  args: string[];
  stdin?: string;
  /** Variables to set; `undefined` removes one (e.g. CLAUDECODE for nested launches). */
  env?: Record<string, string | undefined>;
  /** The model asked for, for the usage record when the CLI does not name the one it used. */
  model?: string;
}

/** What a CLI reported about one run's tokens and cost (CONTRACT section 10); null where it did not say. */
export type AgentUsage = Pick<EventOf<'usage'>, 'model' | 'input_tokens' | 'output_tokens' | 'cost_usd'> & {
  /** True when `cost_usd` is no figure of the CLI's but computed from an agents-file entry's prices (estimateCost). */
  cost_estimated?: boolean;
};

export type AgentAnswer = { text: string; json?: unknown; usage?: AgentUsage };

/** A CLI that is retrying a service it cannot reach, as its output shows while it runs. */
export interface AgentRetry {
  attempts: number;
  message: string;
  /** The service refused (an authentication failure): no retry can succeed, so the leaf is ended at once. */
  final?: boolean;
}

/** Why a vendor cannot serve now (issue 21 §3): the leaf is relaunched with its role's next agent, no revision. */
export type AgentDryKind = 'quota' | 'rate-limit' | 'overload';

export interface AgentDry {
  kind: AgentDryKind;
  /** One plain sentence (never raw stream-json). */
  message: string;
}

/** A leaf's needs in the sandbox beyond the tree (CONTRACT section 13); an agents-file entry's are added. */
export interface AgentSandboxNeeds {
  /** The CLI's config and session places (relative to home, or absolute), read-write. */
  agentPaths?: readonly string[];
  /** Variable names, or prefixes ending in `*`. */
  passEnv?: readonly string[];
  read?: readonly string[];
  write?: readonly string[];
  network?: boolean;
}

/** One agent CLI; the optional methods only add what a CLI can tell beyond its answer. */
export interface AgentPlugin {
  readonly name: string;
  /** The model family, for the rule that reviewers come from other families than the builder. */
  readonly family: string;
  /** Read from the leaf's environment (`CODEX_HOME`); without it, the tree and the allow-list only. */
  sandbox?(env: NodeJS.ProcessEnv): AgentSandboxNeeds;
  buildInvocation(prompt: string, options: AgentOptions): AgentInvocation;
  /** Read the CLI's stdout; throws when it is not that CLI's answer format. Fills `usage` when the CLI reports it. */
  parseAnswer(stdout: string): AgentAnswer;
  /** A cheap command whose exit 0 says the CLI can run at all, tried before a leaf is spent; null: none worth it. */
  preflight?(options: AgentOptions): AgentInvocation | null;
  /** Why a run that exited 0 did no work (codex's sandbox failed to start): the leaf is then `failed`. */
  brokenRun?(stdout: string, stderr: string, invocation: AgentInvocation): string | null;
  /** The CLI's own words for why a run (or a preflight) failed; null when it said nothing it recognises. */
  explainFailure?(stdout: string, stderr: string): string | null;
  /** Tokens and cost from any run, failed ones too; null when stdout is not that CLI's format. */
  parseUsage?(stdout: string): AgentUsage | null;
  /** Whether a failed run's vendor ran dry (also fed the last retry's words); null when it failed otherwise. */
  ranDry?(stdout: string, stderr: string): AgentDry | null;
  /** While the leaf runs: whether its output so far ends with retries of a service it cannot reach. */
  retrying?(stdout: string, stderr: string): AgentRetry | null;
}

export interface TrackerIssue {
  number: number;
  title: string;
  body: string;
  criteria: { index: number; text: string; checked: boolean }[];
}

/** Where issues live: a local Markdown folder by default, GitHub through `gh`. */
export interface TrackerPlugin {
  readonly name: string;
  readIssue(issue: number): Promise<TrackerIssue>;
  comment(issue: number, text: string): Promise<void>;
  tickCriterion(issue: number, criterion: number): Promise<void>;
  /** Open (or update, when one is open already for `branch`) the draft pull request of `branch` into `base`. */
  openDraftPullRequest(options: DraftPullRequest): Promise<{ url: string }>;
  /** The repository file holding issue N's body (`.tdd/issues/N.md`), committed with the step's tick; else null. */
  issueFile?(issue: number): string | null;
}

export interface DraftPullRequest {
  title: string;
  body: string;
  /** The head branch (`leap/issue-N`). */
  branch: string;
  /** The branch it merges into (the branch the run started from); the tracker's default when absent. */
  base?: string;
  issue?: number;
}

/** One build round of one ball, as the engine asks a runner for it (CONTRACT sections 7, 8 and 11). */
export interface BallRoundRequest {
  slice: string;
  ball: string;
  /** 1 to 4: there is no fifth round. */
  round: number;
  /** The commit it builds on: the ball's branch tip (base, its dependencies' work, its earlier rounds). */
  commit: string;
  agent: string;
}

/** What one round returned: its receipt (null: the proof failed, the next round follows) and its candidate. */
export interface BallRoundOutcome {
  receipt: -1 | 0 | 1 | null;
  reason: string;
  /** The candidate's sha256 (hex), null when nothing was hashed. */
  candidate: string | null;
  /** The commit holding the round's work on the ball's branch `leap/SLICE/BALL`, null when it was undone. */
  commit: string | null;
}

/** Where balls are built (local worktrees, or a queue); the engine decides rounds, writes records and integrates. */
export interface RunnerPlugin<
  Request extends BallRoundRequest = BallRoundRequest,
  Outcome extends BallRoundOutcome = BallRoundOutcome,
> {
  readonly name: string;
  buildRound(request: Request): Promise<Outcome>;
  /** The ball ended, whatever its receipt: give back its checkout. */
  releaseBall(slice: string, ball: string): Promise<void>;
  /** The run ended, whatever the end: give back everything still held. */
  close(): Promise<void>;
  /** On TERM/INT: each `buildRound` in flight ends at once with an error; none needed if the leaves get the signal. */
  interrupt?(reason: string): void;
}

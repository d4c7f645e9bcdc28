// Plugin interfaces (CONTRACT section 8): agents, trackers and runners, as types.

/** Why an agent is being run; verifiers and reviewers get read-only sandboxes where the CLI has one. */
export type AgentRole = 'developer' | 'verifier' | 'reviewer' | 'builder' | 'planner';

/** Options an agent turns into a command line. */
export interface AgentOptions {
  role: AgentRole;
  cwd: string;
  model?: string;
  /** A JSON Schema the answer must follow, for CLIs that can enforce one. */
  answerSchema?: Record<string, unknown>;
  /**
   * The leaf runs inside the toolchain's sandbox (CONTRACT section 13), which holds it to its tree: a CLI's own
   * sandbox, which cannot nest inside it (codex's is bwrap too, and no capability is left to make namespaces), is off.
   */
  sandboxed?: boolean;
}

/** A command line ready to spawn without a shell. */
export interface AgentInvocation {
  command: string;
  args: string[];
  /** Text to write on the agent's stdin (the prompt, for CLIs that read it there). */
  stdin?: string;
  /** Variables to set; `undefined` removes one (e.g. CLAUDECODE for nested launches). */
  env?: Record<string, string | undefined>;
  /** The model asked for on the command line, for the usage record when the CLI does not name the one it used. */
  model?: string;
}

/** What a CLI reported about one run's tokens and cost (CONTRACT section 10); null where it did not say. */
export interface AgentUsage {
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** True when `cost_usd` is no figure of the CLI's but computed from an agents-file entry's prices (estimateCost). */
  cost_estimated?: boolean;
}

/** An agent's answer: its final text, the JSON found in it when there was some, and its usage when the CLI reports it. */
export interface AgentAnswer {
  text: string;
  json?: unknown;
  usage?: AgentUsage;
}

/** A CLI that is retrying a service it cannot reach, as its output shows while it runs. */
export interface AgentRetry {
  /** Failed attempts in a row so far, as the output counts them. */
  attempts: number;
  /** The CLI's own words about the last one. */
  message: string;
  /** The service refused (an authentication failure): no retry can succeed, so the leaf is ended at once. */
  final?: boolean;
}

/**
 * Why a vendor cannot serve now though another vendor could (issue 21 §3): its quota or usage limit is spent
 * (`quota`), it limits the rate of requests (`rate-limit`), or it has no capacity (`overload`). A leaf that ends
 * so is relaunched with the next agent of its role's list, not counted as a revision.
 */
export type AgentDryKind = 'quota' | 'rate-limit' | 'overload';

/** A vendor that ran dry, as its CLI said so. */
export interface AgentDry {
  kind: AgentDryKind;
  /** The CLI's own words, one plain sentence (never raw stream-json). */
  message: string;
}

/**
 * What an agent's leaf needs inside its sandbox (CONTRACT section 13) beyond the tree: its CLI's own config
 * and session places (relative to home, or absolute), read-write; the variables its CLI reads (names, or
 * prefixes ending in `*`); more places read-only or read-write; the network (default on for agents).
 * An agents-file entry's `pass_env`, `paths` and `network` are added to its plugin's.
 */
export interface AgentSandboxNeeds {
  agentPaths?: readonly string[];
  passEnv?: readonly string[];
  read?: readonly string[];
  write?: readonly string[];
  network?: boolean;
}

/** One agent CLI. The optional methods are what a CLI can tell beyond its answer; a plugin without them loses nothing else. */
export interface AgentPlugin {
  readonly name: string;
  /** The model family, for the rule that reviewers come from other families than the builder. */
  readonly family: string;
  /** What its leaf needs inside a sandbox, read from the leaf's environment (`CODEX_HOME`); none: the tree and the allow-list only. */
  sandbox?(env: NodeJS.ProcessEnv): AgentSandboxNeeds;
  buildInvocation(prompt: string, options: AgentOptions): AgentInvocation;
  /** Read the CLI's stdout; throws when it is not that CLI's answer format. Fills `usage` when the CLI reports it. */
  parseAnswer(stdout: string): AgentAnswer;
  /**
   * A cheap command whose exit 0 says the CLI can run at all (installed, logged in), run before a leaf
   * is spent; null when the CLI has none worth its cost (its own run then fails at once by itself).
   */
  preflight?(options: AgentOptions): AgentInvocation | null;
  /**
   * A run that exited 0 though its CLI could not do its work, as its output shows (codex's own sandbox that
   * could not start, so every command failed): why, in one sentence; null when nothing shows so. The leaf is
   * then `failed` (the conductor's agent-failed), never a success that wrote or read nothing.
   */
  brokenRun?(stdout: string, stderr: string, invocation: AgentInvocation): string | null;
  /** The CLI's own words for why a run (or a preflight) failed, from its output; null when it said nothing it recognises. */
  explainFailure?(stdout: string, stderr: string): string | null;
  /** What the CLI reported about tokens and cost, from any run, failed ones too; null when stdout is not that CLI's format. */
  parseUsage?(stdout: string): AgentUsage | null;
  /**
   * From a failed run's output (or the last retry's words, when the leaf was ended while retrying): whether its
   * vendor ran dry, and how; null when it failed otherwise (a crash, a login, a network that is down).
   */
  ranDry?(stdout: string, stderr: string): AgentDry | null;
  /** While the leaf runs: whether the output so far ends with retries of a service the CLI cannot reach; null when not. */
  retrying?(stdout: string, stderr: string): AgentRetry | null;
}

/** An issue as a tracker gives it. */
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
  /**
   * The file in the repository that holds issue N's body, when the tracker keeps it there (the local
   * tracker's `.tdd/issues/N.md`), so the conductor commits a criterion's tick with the step's refactor;
   * absent, or null, when the issue lives elsewhere (GitHub).
   */
  issueFile?(issue: number): string | null;
}

/** What the conductor asks a tracker for at the end of a run. */
export interface DraftPullRequest {
  title: string;
  body: string;
  /** The head branch (`leap/issue-N`). */
  branch: string;
  /** The branch it merges into (the branch the run started from); the tracker's default when absent. */
  base?: string;
  /** The issue the pull request resolves. */
  issue?: number;
}

/** What a runner needs to start one leaf. */
export interface LeafSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
}

/** How a leaf ended, as its exit file records it. */
export interface LeafResult {
  name: string;
  code: number;
  status: string;
  stdout: string;
  stderr: string;
}

/** One build round of one ball, as the engine asks a runner for it (CONTRACT sections 7, 8 and 11). */
export interface BallRoundRequest {
  slice: string;
  ball: string;
  /** 1 to 4: there is no fifth round. */
  round: number;
  /** The commit the round builds on: the ball's branch tip (base, its dependencies' merged work, its earlier rounds). */
  commit: string;
  /** The builder agent's name, as the built-ins or an agents file know it. */
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

/**
 * Where balls are built: this machine's worktrees by default, other machines through a queue instead.
 * "Build this ball's round in a checkout of this commit, with this agent, and return its receipt and
 * candidate"; the engine decides the rounds, writes the records and integrates.
 */
export interface RunnerPlugin<Request extends BallRoundRequest = BallRoundRequest, Outcome extends BallRoundOutcome = BallRoundOutcome> {
  readonly name: string;
  buildRound(request: Request): Promise<Outcome>;
  /** The ball ended, whatever its receipt: give back its checkout. */
  releaseBall(slice: string, ball: string): Promise<void>;
  /** The run ended, whatever the end: give back everything still held. */
  close(): Promise<void>;
  /**
   * The run was asked to stop (TERM, INT): rounds built elsewhere are no longer waited for, each `buildRound`
   * in flight ending at once with an error (its ball held). A runner whose rounds end with the run's own
   * leaves (the local one: the signal reaches them) needs none.
   */
  interrupt?(reason: string): void;
}

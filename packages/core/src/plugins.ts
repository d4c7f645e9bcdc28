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
}

/** One agent CLI. The optional methods are what a CLI can tell beyond its answer; a plugin without them loses nothing else. */
export interface AgentPlugin {
  readonly name: string;
  /** The model family, for the rule that reviewers come from other families than the builder. */
  readonly family: string;
  buildInvocation(prompt: string, options: AgentOptions): AgentInvocation;
  /** Read the CLI's stdout; throws when it is not that CLI's answer format. Fills `usage` when the CLI reports it. */
  parseAnswer(stdout: string): AgentAnswer;
  /**
   * A cheap command whose exit 0 says the CLI can run at all (installed, logged in), run before a leaf
   * is spent; null when the CLI has none worth its cost (its own run then fails at once by itself).
   */
  preflight?(options: AgentOptions): AgentInvocation | null;
  /** The CLI's own words for why a run (or a preflight) failed, from its output; null when it said nothing it recognises. */
  explainFailure?(stdout: string, stderr: string): string | null;
  /** What the CLI reported about tokens and cost, from any run, failed ones too; null when stdout is not that CLI's format. */
  parseUsage?(stdout: string): AgentUsage | null;
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

/** Where leaves and balls run: this machine by default, in worktrees; a distributed runner can take its place. */
export interface RunnerPlugin {
  readonly name: string;
  runLeaf(spec: LeafSpec): Promise<LeafResult>;
}

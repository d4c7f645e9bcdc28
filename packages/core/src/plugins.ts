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

/** One agent CLI. */
export interface AgentPlugin {
  readonly name: string;
  /** The model family, for the rule that reviewers come from other families than the builder. */
  readonly family: string;
  buildInvocation(prompt: string, options: AgentOptions): AgentInvocation;
  /** Read the CLI's stdout; throws when it is not that CLI's answer format. */
  parseAnswer(stdout: string): AgentAnswer;
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
  openDraftPullRequest(options: { title: string; body: string; branch: string }): Promise<{ url: string }>;
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

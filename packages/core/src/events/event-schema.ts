// The event log's one schema (CONTRACT section 5); writers use its types only, never load it (zod).
import { z } from 'zod';

const receiptValue = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
const KILLED = ['killed-timeout', 'killed-stuck', 'killed-stop', 'killed-signal', 'killed-external'] as const;
const ofBall = { slice: z.string(), ball: z.string() };
const ofBallMaybe = { slice: z.string().optional(), ball: z.string().optional() };

const commonFields = {
  ts: z.iso.datetime({ precision: 3, offset: true }).describe('ISO 8601 time with milliseconds'),
  issue: z.number().int().positive().nullable(),
  step: z.string().nullable(),
  skill_commit: z.string().nullable(),
};

const optional = <T extends z.ZodType>(type: T, description: string) => type.optional().describe(description);

function kind<E extends string, S extends z.ZodRawShape>(event: E, description: string, shape: S) {
  return z.looseObject({ ...commonFields, event: z.literal(event), ...shape }).describe(description);
}

const VERDICT =
  'A verifier judged a phase: PASS (0), REJECT (1), ERROR when malformed or killed (2), ' +
  'BLOCKED (the step cannot be done as written), or a flaky test.';
const FALLOVER =
  "A leaf's vendor ran dry (quota, rate limit, overload): the leaf is launched again " +
  "with the next agent of its role's list, not counted as a revision or a round.";

export const eventSchema = z.discriminatedUnion('event', [
  kind('launch', 'A supervisor started a leaf.', {
    leaf: z.string().min(1),
    actor: z.string().nullable(),
    phase: z.string().nullable(),
    attempt: z.number().int().positive().nullable(),
    pid: z.number().int().positive(),
    cmd: z.array(z.string()),
    run: z.string().optional(),
    timeout_ms: z.number().nonnegative().optional().describe('the time limit the supervisor applies; 0: none'),
    sandbox: optional(z.enum(['bwrap', 'off']), 'whether the leaf runs in a bubblewrap sandbox (CONTRACT section 13)'),
    sandbox_role: optional(
      z.enum(['writer', 'reader']),
      'what the sandboxed leaf may write: its tree (writer) or a throwaway copy (reader)',
    ),
    network: z.boolean().optional().describe('whether the sandboxed leaf can reach the network'),
  }),
  kind('exit', 'A leaf and everything it started are gone.', {
    leaf: z.string().min(1),
    code: z.number().int(),
    status: z.enum(['exited', ...KILLED, 'refused-stop', 'failed-start']),
    duration_ms: z.number().nonnegative(),
    leaf_code: z.number().int().nullable().optional(),
    signal: z.string().nullable().optional(),
    run: z.string().optional(),
    leftovers: z.number().int().nonnegative().optional(),
    sandbox: z.enum(['bwrap', 'off']).optional(),
  }),
  kind('verdict', VERDICT, {
    phase: z.enum(['red', 'green', 'refactor', 'baseline']).describe('baseline: a flaky test seen before any step'),
    verdict: z.enum(['PASS', 'REJECT', 'ERROR', 'BLOCKED', 'flaky']),
    reason: z.string(),
    code: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
    commit: z.string().optional(),
    tests: z.array(z.string()).optional(),
    agent: z.string().optional(),
    test: z.string().optional().describe('flaky: the test that passed once and failed once, as its runner named it'),
    counts: optional(
      z.strictObject({ ran: z.number().int().nonnegative(), skipped: z.number().int().nonnegative() }).nullable(),
      "the tests the phase's suite run ran and skipped, as its runner reported them; null when it did not",
    ),
  }),
  kind('mark', 'A named point in a run, from leap-event mark.', {
    name: z.string().min(1),
    anchor: z.string().nullable(),
  }),
  kind('tick', 'A ledger command changed something.', {
    action: z.enum(['tick', 'clear-refactor-pending', 'tick-criterion', 'preserve-attempt', 'init', 'restore']),
    title: z.string().nullable(),
    commit: z.string().optional(),
    file: z.string().optional(),
    criterion: z.number().int().positive().optional(),
    ref: z.string().optional(),
  }),
  kind('bail', 'A run gave up, with its cause classified.', {
    cause: z.string(),
    class: z.enum(['process', 'system']),
    message: optional(z.string(), 'the narration: what happened, in words, with the whole question for needs-user'),
  }),
  kind('stop', 'A stop request was made, cleared or honoured.', {
    mode: z.enum(['at-ledger', 'at-leaf', 'now', 'unreadable']).nullable(),
    action: z.enum(['requested', 'cleared', 'honoured']),
    leaf: z.string().optional(),
  }),
  kind('ball', 'A LEAP ball changed state.', {
    ...ofBall,
    state: z.enum(['ready', 'dispatched', 'blocked', 'checkpointed', 'done']),
    wave: z.number().int().nonnegative().optional(),
    receipt: receiptValue.optional(),
    reason: z.string().optional(),
  }),
  kind('round', 'A builder round ended (no receipt: its proof failed, the next round follows).', {
    ...ofBall,
    round: z.number().int().min(1).max(4),
    receipt: receiptValue.optional(),
    candidate: z.string().nullable().optional(),
    reason: z.string().optional(),
    agent: optional(
      z.string(),
      'the builder agent that built the round (after a fall-over, not the first of the list)',
    ),
    family: z.string().optional().describe("that builder's model family"),
  }),
  kind('receipt', 'A ball was scored: -1 refuse, 0 hold, 1 pass.', {
    ...ofBall,
    value: receiptValue,
    candidate: z.string().nullable(),
    evidence: z.string(),
  }),
  kind('review', 'A blind reviewer (or the jury, reviewer null) judged a candidate.', {
    candidate: z.string(),
    reviewer: z.string().nullable(),
    family: z.string().nullable(),
    verdict: z.enum(['pass', 'refuse', 'none']),
    value: receiptValue,
    findings: z.array(z.looseObject({ severity: z.string(), message: z.string() })).optional(),
    reasoning: z.string().optional(),
    ...ofBallMaybe,
  }),
  kind('merge', 'The integrator merged a ball onto the spine.', {
    ...ofBall,
    commit: z.string(),
    candidate: z.string(),
  }),
  kind('usage', 'What one agent leaf cost, as its CLI reported it (null where it did not say).', {
    leaf: z.string().min(1),
    agent: z.string().nullable(),
    family: z.string().nullable(),
    model: z.string().nullable(),
    input_tokens: z.number().int().nonnegative().nullable(),
    output_tokens: z.number().int().nonnegative().nullable(),
    cost_usd: z.number().nonnegative().nullable(),
  }),
  kind('suite', "The toolchain ran the project's test suite (CONTRACT section 13): on which tree, with what result.", {
    tree: z
      .string()
      .nullable()
      .describe(
        'the git tree hash of what the suite ran on (the work tree as it was, untracked files included; ' +
          'the state folder not); null when git could not say',
      ),
    command: z.string().describe('the test command, as run with bash -c'),
    code: z.number().int().describe('its exit code (a signal is 128 + its number)'),
    duration_ms: z.number().nonnegative(),
    phase: optional(
      z.string().nullable(),
      'the phase whose ground truth ran it (red, green, refactor), ' +
        "or baseline for a conductor's run before any change; null when none",
    ),
    purpose: optional(
      z.enum(['canary', 'rerun']),
      "canary: proving the step's test files run; rerun: the flaky check; absent: a counted run",
    ),
    limit: optional(
      z.enum(['timeout', 'idle']),
      "the limit that ended it (the run's --timeout or --idle-timeout), " +
        'which ended it whole; absent when it ended by itself',
    ),
  }),
  kind('fallover', FALLOVER, {
    leaf: z.string().min(1).describe('the leaf that ended so, and is launched again with the next agent'),
    role: z.enum(['developer', 'verifier', 'planner', 'builder', 'reviewer']),
    agent: z.string().describe('the agent whose vendor ran dry'),
    family: z.string().nullable(),
    cause: z.enum(['quota', 'rate-limit', 'overload']),
    message: z.string().describe("the CLI's own words, one sentence"),
    next: z
      .string()
      .nullable()
      .describe('the agent launched instead; null when the list ran out (the run bails agent-failed)'),
    ...ofBallMaybe,
  }),
]);

export type LeapEvent = z.infer<typeof eventSchema>;
export type EventKind = LeapEvent['event'];
export type EventOf<K extends EventKind> = Extract<LeapEvent, { event: K }>;
export type ExitStatus = EventOf<'exit'>['status'];

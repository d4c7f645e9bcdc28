// What `leap mcp`'s tools take and give (CONTRACT section 14), and the hints clients read before calling unasked.
import { STOP_MODES } from '@leap/core';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const issue = z.number().int().positive().describe('The issue number.');
const file = z.string().min(1).describe("The slice file, relative to the server's folder.");
const duration = z
  .union([z.string().min(1), z.number().nonnegative()])
  .describe('DURATION: 90, "90s", "15m", "1h" (a number is seconds).');

const tddRun = {
  issue,
  'test-cmd': z
    .string()
    .min(1)
    .optional()
    .describe('The test command (else leap.config.json, VERI_TEST_CMD, detected).'),
  plan: z
    .string()
    .min(1)
    .optional()
    .describe('A plan file in the format of leap-ledger init, instead of a planning leaf.'),
  developer: z
    .string()
    .min(1)
    .optional()
    .describe('The developer agent; NAME,NAME... tries them in order when a vendor runs dry.'),
  verifier: z
    .string()
    .min(1)
    .optional()
    .describe('The verifier agent (of another family than the developer); a comma list too.'),
  planner: z.string().min(1).optional().describe('The planner agent.'),
  agents: z.string().min(1).optional().describe("An agents file, relative to the server's folder."),
  revisions: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Revision leaves a phase may have after a REJECT (default 2).'),
  'max-cost': z
    .number()
    .nonnegative()
    .optional()
    .describe('Bail cost-budget once the reported cost passes this many USD.'),
  tracker: z.enum(['local', 'github']).optional().describe('Where the issue lives (default local: .tdd/issues/N.md).'),
  timeout: duration.optional().describe("Each leaf's time limit."),
  'idle-timeout': duration.optional().describe('A leaf silent and idle this long is killed-stuck (0 is off).'),
  tests: z
    .array(z.string().min(1))
    .optional()
    .describe('Globs of files holding tests, beside the built-in conventions.'),
  'allow-same-family': z.boolean().optional().describe("Allow a verifier of the developer's model family."),
  notify: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A command (split on spaces, no shell) told of done, bail, stop and cost-budget, the event as JSON on stdin.',
    ),
  sandbox: z.enum(['on', 'off']).optional().describe('Leaves and suite runs in a bubblewrap sandbox (default on).'),
};

const sliceRun = {
  file,
  jobs: z.number().int().positive().optional().describe('Balls built at once.'),
  agents: z.string().min(1).optional().describe("An agents file, relative to the server's folder."),
  builder: z
    .string()
    .min(1)
    .optional()
    .describe('The builder agent; NAME,NAME... tries them in order when a vendor runs dry.'),
  reviewers: z.array(z.string().min(1)).optional().describe("The jury (the builder's family is refused)."),
  alternates: z.array(z.string().min(1)).optional().describe('Seated in place of reviewers that never answered.'),
  'max-cost': z
    .number()
    .nonnegative()
    .optional()
    .describe('Stop spending past this many USD: balls not yet done are held.'),
  notify: z
    .string()
    .min(1)
    .optional()
    .describe("A command (split on spaces, no shell) told of the run's end, the event as JSON on stdin."),
  sandbox: z
    .enum(['on', 'off'])
    .optional()
    .describe('Builders, jurors and proofs in a bubblewrap sandbox (default on).'),
};

export const INPUTS = {
  tdd_run: tddRun,
  tdd_status: { issue },
  tdd_stop: { mode: z.enum([...STOP_MODES, 'clear']).describe('How to stop, or clear to withdraw the request.') },
  slice_validate: { file },
  slice_plan: { file },
  slice_run: sliceRun,
  slice_status: { file },
  report: {
    out: z
      .string()
      .min(1)
      .optional()
      .describe("Where to write it, relative to the server's folder (default: leap-report.html in the state folder)."),
  },
  verdicts: {
    issue,
    last: z.number().int().positive().max(500).optional().describe('How many, newest last (default 20).'),
  },
  workers: { redis: z.string().min(1).optional().describe('redis://HOST:PORT (default LEAP_REDIS_URL).') },
};

const detached = z.looseObject({
  running: z.boolean(),
  pid: z.number(),
  argv: z.array(z.string()),
  started: z.string(),
  code: z.number().nullable().optional().describe('Once it ended, when it was seen to end: its exit code.'),
  result: z.unknown().optional().describe('Once it ended: what its --json printed.'),
  stderr: z.string().describe('The end of its stderr.'),
  out: z.string(),
  err: z.string(),
});
const started = { ...detached.shape, poll: z.string().describe('The tool to poll it with.') };

const stepState = z.looseObject({ title: z.string(), state: z.string() });
const tddStatus = z.looseObject({
  issue: z.number(),
  steps: z.array(stepState),
  done: z.number(),
  current: z.looseObject({ index: z.number(), step: z.string(), phase: z.string().nullable() }).nullable(),
  conductor: z.looseObject({ pid: z.number() }).nullable(),
  running: z.array(z.looseObject({ leaf: z.string(), pid: z.number(), elapsedMs: z.number() })),
  lastVerdict: z.looseObject({ phase: z.string(), verdict: z.string(), reason: z.string() }).nullable(),
  stop: z.string().nullable().describe('A pending stop request: its mode, unreadable, or null.'),
  bail: z
    .looseObject({ cause: z.string(), class: z.string() })
    .nullable()
    .describe('How the run ended when it bailed.'),
  stopped: z
    .looseObject({ mode: z.string(), at: z.string() })
    .nullable()
    .describe('How the run ended when it stopped.'),
});
const verdict = z.object({
  ts: z.string(),
  step: z.string().nullable(),
  phase: z.string(),
  verdict: z.string(),
  reason: z.string(),
});

/** The output of each tool that returns data; its answer's structured content follows it. */
export const OUTPUTS = {
  tdd_run: started,
  tdd_status: { status: tddStatus, detached: detached.nullable() },
  slice_validate: {
    file: z.string(),
    valid: z.boolean(),
    slice: z.string().nullable(),
    balls: z.number().nullable(),
    waves: z.number().nullable(),
    violations: z.array(z.looseObject({ rule: z.string(), message: z.string() })),
    warnings: z.array(z.looseObject({ message: z.string() })),
  },
  slice_plan: {
    slice: z.string(),
    spine: z.string(),
    waves: z.array(z.array(z.string())),
    deps: z.record(z.string(), z.array(z.string())),
  },
  slice_run: started,
  slice_status: { status: z.looseObject({ slice: z.string() }), detached: detached.nullable() },
  report: { file: z.string(), bytes: z.number(), events: z.number(), leaves: z.number(), problems: z.number() },
  verdicts: { verdicts: z.array(verdict).describe('Newest last.') },
  workers: {
    queue: z.looseObject({ name: z.string(), paused: z.boolean(), counts: z.record(z.string(), z.number()) }),
    workers: z.array(z.looseObject({ name: z.string(), state: z.enum(['live', 'draining', 'dead', 'forged']) })),
  },
};

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const ANNOTATIONS: Record<keyof typeof INPUTS, ToolAnnotations> = {
  // Commits on its own branch leap/issue-N, never deletes; agents reach their vendors.
  tdd_run: {
    title: 'Start a test-first run of an issue',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  tdd_status: { title: "Where an issue's run stands", ...readOnly },
  // `now` ends the running leaf (its half-done step is preserved and reverted on resume).
  tdd_stop: {
    title: 'Stop a run, or withdraw the request',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  slice_validate: { title: 'Validate a LEAP slice', ...readOnly },
  slice_plan: { title: "A slice's waves", ...readOnly },
  slice_run: {
    title: 'Start a run of a LEAP slice',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  slice_status: { title: 'Where a slice stands', ...readOnly },
  // Writes one file, replacing what was at `out`.
  report: {
    title: 'Write the HTML report',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  verdicts: { title: "An issue's last verdicts", ...readOnly },
  // Reads Redis (another machine's, maybe).
  workers: { title: 'The leap workers of the BullMQ queue', ...readOnly, openWorldHint: true },
};

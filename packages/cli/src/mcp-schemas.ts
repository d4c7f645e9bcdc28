// What `leap mcp`'s tools take and give (CONTRACT section 14), and the hints clients read before calling unasked.
import { STOP_MODES } from '@leap/core';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const issue = z.number().int().positive().describe('The issue number.');
const file = z.string().min(1).describe("The slice file, relative to the server's folder.");
const duration = z
  .union([z.string().min(1), z.number().nonnegative()])
  .describe('DURATION: 90, "90s", "15m", "1h" (a number is seconds).');
const text = (about: string) => z.string().min(1).optional().describe(about);
const onOff = (about: string) => z.enum(['on', 'off']).optional().describe(about);
const usd = (about: string) => z.number().nonnegative().optional().describe(about);
const names = (about: string) => z.array(z.string().min(1)).optional().describe(about);
const count = (about: string) => z.number().int().nonnegative().optional().describe(about);

const tddRun = {
  issue,
  'test-cmd': text('The test command (else leap.config.json, VERI_TEST_CMD, detected).'),
  plan: text('A plan file in the format of leap-ledger init, instead of a planning leaf.'),
  developer: text('The developer agent; NAME,NAME... tries them in order when a vendor runs dry.'),
  verifier: text('The verifier agent (of another family than the developer); a comma list too.'),
  planner: text('The planner agent.'),
  agents: text("An agents file, relative to the server's folder."),
  revisions: count('Revision leaves a phase may have after a REJECT (default 2).'),
  'max-cost': usd('Bail cost-budget once the reported cost passes this many USD.'),
  tracker: z.enum(['local', 'github']).optional().describe('Where the issue lives (default local: .tdd/issues/N.md).'),
  timeout: duration.optional().describe("Each leaf's time limit."),
  'idle-timeout': duration.optional().describe('A leaf silent and idle this long is killed-stuck (0 is off).'),
  tests: names('Globs of files holding tests, beside the built-in conventions.'),
  'allow-same-family': z.boolean().optional().describe("Allow a verifier of the developer's model family."),
  notify: text(
    'A command (split on spaces, no shell) told of done, bail, stop and cost-budget, the event as JSON on stdin.',
  ),
  sandbox: onOff('Leaves and suite runs in a bubblewrap sandbox (default on).'),
};

export const INPUTS = {
  tdd_run: tddRun,
  tdd_status: { issue },
  tdd_stop: { mode: z.enum([...STOP_MODES, 'clear']).describe('How to stop, or clear to withdraw the request.') },
  slice_validate: { file },
  slice_plan: { file },
  slice_run: {
    file,
    jobs: z.number().int().positive().optional().describe('Balls built at once.'),
    agents: text("An agents file, relative to the server's folder."),
    builder: text('The builder agent; NAME,NAME... tries them in order when a vendor runs dry.'),
    reviewers: names("The jury (the builder's family is refused)."),
    alternates: names('Seated in place of reviewers that never answered.'),
    'max-cost': usd('Stop spending past this many USD: balls not yet done are held.'),
    notify: text("A command (split on spaces, no shell) told of the run's end, the event as JSON on stdin."),
    sandbox: onOff('Builders, jurors and proofs in a bubblewrap sandbox (default on).'),
  },
  slice_status: { file },
  report: {
    out: text("Where to write it, relative to the server's folder (default: leap-report.html in the state folder)."),
  },
  verdicts: {
    issue,
    last: z.number().int().positive().max(500).optional().describe('How many, newest last (default 20).'),
  },
  workers: { redis: text('redis://HOST:PORT (default LEAP_REDIS_URL).') },
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

const ended = (shape: z.ZodRawShape, about: string) => z.looseObject(shape).nullable().describe(about);
const tddStatus = z.looseObject({
  issue: z.number(),
  steps: z.array(z.looseObject({ title: z.string(), state: z.string() })),
  done: z.number(),
  current: z.looseObject({ index: z.number(), step: z.string(), phase: z.string().nullable() }).nullable(),
  conductor: z.looseObject({ pid: z.number() }).nullable(),
  running: z.array(z.looseObject({ leaf: z.string(), pid: z.number(), elapsedMs: z.number() })),
  lastVerdict: z.looseObject({ phase: z.string(), verdict: z.string(), reason: z.string() }).nullable(),
  stop: z.string().nullable().describe('A pending stop request: its mode, unreadable, or null.'),
  bail: ended({ cause: z.string(), class: z.string() }, 'How the run ended when it bailed.'),
  stopped: ended({ mode: z.string(), at: z.string() }, 'How the run ended when it stopped.'),
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

const hints = (title: string, readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean) => ({
  title,
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
});
const readOnly = (title: string, openWorld = false) => hints(title, true, false, true, openWorld);

export const ANNOTATIONS: Record<keyof typeof INPUTS, ToolAnnotations> = {
  // Commits on its own branch leap/issue-N, never deletes; agents reach their vendors.
  tdd_run: hints('Start a test-first run of an issue', false, false, false, true),
  tdd_status: readOnly("Where an issue's run stands"),
  // `now` ends the running leaf (its half-done step is preserved and reverted on resume).
  tdd_stop: hints('Stop a run, or withdraw the request', false, true, true, false),
  slice_validate: readOnly('Validate a LEAP slice'),
  slice_plan: readOnly("A slice's waves"),
  slice_run: hints('Start a run of a LEAP slice', false, false, false, true),
  slice_status: readOnly('Where a slice stands'),
  // Writes one file, replacing what was at `out`.
  report: hints('Write the HTML report', false, true, true, false),
  verdicts: readOnly("An issue's last verdicts"),
  // Reads Redis (another machine's, maybe).
  workers: readOnly('The leap workers of the BullMQ queue', true),
};

export const ABOUT: Record<keyof typeof INPUTS, string> = {
  tdd_run:
    'Start `leap tdd run --issue N` detached (it drives the issue test-first: plan, red, green, refactor per step, ' +
    'each verified blind). Returns at once; poll with tdd_status.',
  tdd_status:
    "Where issue N's run stands (`leap tdd status --issue N --json`: steps, phase, leaves running, last verdict, a " +
    'pending stop, and how it ended: bailed or stopped), and the detached run tdd_run started: running, or its ' +
    'exit and result.',
  tdd_stop:
    'Ask the running conductor to stop (`leap tdd stop MODE`): at-ledger finishes the step in flight, at-leaf stops ' +
    'before the next leaf, now also ends the running leaf; clear withdraws the request.',
  slice_validate:
    'Check a slice file against its schema and every rule, all violations at once (`leap slice validate FILE --json`).',
  slice_plan: 'The waves a valid slice runs in (`leap slice plan FILE --json`).',
  slice_status:
    "Where a slice stands: each ball's state, rounds and last receipt (`leap slice status FILE --json`), and the " +
    'detached run slice_run started.',
  slice_run:
    'Start `leap slice run FILE` detached (balls built in waves, proven, judged, merged on the spine). Returns at ' +
    'once; poll with slice_status.',
  report:
    "Write the self-contained HTML report of this repository's runs (`leap report --json`) and answer with its path.",
  verdicts:
    "The last verdicts of issue N's run, from the event log: step, phase, PASS/REJECT/ERROR (or flaky), the " +
    "verifier's reason.",
  workers: 'The BullMQ queue: its leap workers and job counts (`leap workers --json`).',
};

// `leap mcp` (CONTRACT section 14, issue 23 §3): a Model Context Protocol server on stdio, on the official
// SDK, whose tools are the contract's (tdd_run, tdd_status, tdd_stop, slice_validate, slice_plan, slice_run,
// slice_status, report, verdicts), each with a zod input schema. Paths are relative to the server's folder;
// long work starts detached and is polled; every other tool runs the CLI to its end and answers with its output.
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { resolveStateDir, statePaths } from '@leap/core';
import type { EventRecord } from '@leap/core/schemas';
import { detachedName, readDetached, runLeap, startDetached, type BinRun } from './mcp-runs.js';
import { readVersion } from './version.js';

/** Where the server works and how long a tool may take. */
export interface McpContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A tool run to its end is killed past this (default 120 s). */
  toolTimeoutMs?: number;
  /** How long a detached start waits for an early end, so bad input is answered at once (default 3 s). */
  settleMs?: number;
}

/** The tools' names, as the contract pins them. */
export const MCP_TOOLS = ['tdd_run', 'tdd_status', 'tdd_stop', 'slice_validate', 'slice_plan', 'slice_run', 'slice_status', 'report', 'verdicts'] as const;

const issue = z.number().int().positive().describe('The issue number.');
const file = z.string().min(1).describe("The slice file, relative to the server's folder.");
const duration = z.union([z.string().min(1), z.number().nonnegative()]).describe('DURATION: 90, "90s", "15m", "1h" (a number is seconds).');

/** tdd_run's input: the issue and `leap tdd run`'s options, by their long names. */
const tddRunInput = {
  issue,
  'test-cmd': z.string().min(1).optional().describe('The test command (else leap.config.json, VERI_TEST_CMD, detected).'),
  plan: z.string().min(1).optional().describe('A plan file in the format of leap-ledger init, instead of a planning leaf.'),
  developer: z.string().min(1).optional().describe('The developer agent; NAME,NAME... tries them in order when a vendor runs dry.'),
  verifier: z.string().min(1).optional().describe('The verifier agent (of another family than the developer); a comma list too.'),
  planner: z.string().min(1).optional().describe('The planner agent.'),
  agents: z.string().min(1).optional().describe("An agents file, relative to the server's folder."),
  revisions: z.number().int().nonnegative().optional().describe('Revision leaves a phase may have after a REJECT (default 2).'),
  'max-cost': z.number().nonnegative().optional().describe('Bail cost-budget once the reported cost passes this many USD.'),
  tracker: z.enum(['local', 'github']).optional().describe('Where the issue lives (default local: .tdd/issues/N.md).'),
  timeout: duration.optional().describe("Each leaf's time limit."),
  'idle-timeout': duration.optional().describe('A leaf silent and idle this long is killed-stuck (0 is off).'),
  tests: z.array(z.string().min(1)).optional().describe('Globs of files holding tests, beside the built-in conventions.'),
  'allow-same-family': z.boolean().optional().describe("Allow a verifier of the developer's model family."),
  notify: z.string().min(1).optional().describe('A command (split on spaces, no shell) told of done, bail, stop and cost-budget, the event as JSON on stdin.'),
  sandbox: z.enum(['on', 'off']).optional().describe('Leaves and suite runs in a bubblewrap sandbox (default on).'),
};

/** slice_run's input: the file and `leap slice run`'s options, by their long names. */
const sliceRunInput = {
  file,
  jobs: z.number().int().positive().optional().describe('Balls built at once.'),
  agents: z.string().min(1).optional().describe("An agents file, relative to the server's folder."),
  builder: z.string().min(1).optional().describe('The builder agent; NAME,NAME... tries them in order when a vendor runs dry.'),
  reviewers: z.array(z.string().min(1)).optional().describe("The jury (the builder's family is refused)."),
  alternates: z.array(z.string().min(1)).optional().describe('Seated in place of reviewers that never answered.'),
  'max-cost': z.number().nonnegative().optional().describe('Stop spending past this many USD: balls not yet done are held.'),
  notify: z.string().min(1).optional().describe("A command (split on spaces, no shell) told of the run's end, the event as JSON on stdin."),
  sandbox: z.enum(['on', 'off']).optional().describe('Builders, jurors and proofs in a bubblewrap sandbox (default on).'),
};

// The options whose values are paths: made absolute from the server's folder before the CLI sees them.
const PATH_OPTIONS = new Set(['plan', 'agents']);
const LIST_OPTIONS = new Set(['reviewers', 'alternates']);

/** The CLI's arguments for a tool's input: every value is one argv element, data and never a shell word. */
export function optionArgs(input: Record<string, unknown>, cwd: string, skip: string[]): string[] {
  const args: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (skip.includes(key) || value === undefined) continue;
    if (typeof value === 'boolean') {
      if (value) args.push(`--${key}`);
    } else if (Array.isArray(value)) {
      if (LIST_OPTIONS.has(key)) args.push(`--${key}=${value.join(',')}`);
      else for (const v of value) args.push(`--${key}=${String(v)}`);
    } else {
      args.push(`--${key}=${PATH_OPTIONS.has(key) ? resolve(cwd, String(value)) : String(value)}`);
    }
  }
  return args;
}

/** The answer of a tool that ran the CLI to its end: its output, and an error when its exit code was not 0. */
export function binAnswer(args: string[], run: BinRun): CallToolResult {
  const text = [run.stdout.trimEnd(), run.stderr.trimEnd()].filter((t) => t !== '').join('\n');
  return { content: [{ type: 'text', text: `leap ${args.join(' ')}: exit ${run.code ?? 'killed'}${text === '' ? '' : `\n${text}`}` }], isError: run.code !== 0 };
}

function json(value: unknown, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], isError };
}

/** Build the server with every tool; `connect` it to a transport. */
function createLeapMcpServer(context: McpContext): McpServer {
  const { cwd, env } = context;
  const timeout = context.toolTimeoutMs ?? 120_000;
  const settle = context.settleMs ?? 3_000;
  const server = new McpServer({ name: 'leap', version: readVersion() });
  const cli = async (args: string[]) => binAnswer(args, await runLeap(args, cwd, env, timeout));
  const detached = async (name: string, args: string[], poll: string) => {
    const state = await startDetached(name, args, cwd, env, settle);
    if (state.running) return json({ ...state, poll });
    // It ended within the settling time: bad input (the CLI's own error), or work that was already done.
    return json({ ...state, poll }, state.code !== 0);
  };

  server.registerTool(
    'tdd_run',
    {
      description: 'Start `leap tdd run --issue N` detached (it drives the issue test-first: plan, red, green, refactor per step, each verified blind). Returns at once; poll with tdd_status.',
      inputSchema: tddRunInput,
    },
    async (input) => detached(detachedName('tdd', String(input.issue)), ['tdd', 'run', `--issue=${input.issue}`, '--json', ...optionArgs(input, cwd, ['issue'])], 'tdd_status'),
  );

  server.registerTool(
    'tdd_status',
    {
      description:
        "Where issue N's run stands (`leap tdd status --issue N --json`: steps, phase, leaves running, last verdict, stop, bail), and the detached run tdd_run started: running, or its exit and result.",
      inputSchema: { issue },
    },
    async ({ issue: n }) => {
      const run = await runLeap(['tdd', 'status', `--issue=${n}`, '--json'], cwd, env, timeout);
      if (run.code !== 0) return binAnswer(['tdd', 'status', `--issue=${n}`, '--json'], run);
      return json({ status: JSON.parse(run.stdout) as unknown, detached: readDetached(detachedName('tdd', String(n)), cwd, env) });
    },
  );

  server.registerTool(
    'tdd_stop',
    {
      description:
        'Ask the running conductor to stop (`leap tdd stop MODE`): at-ledger finishes the step in flight, at-leaf stops before the next leaf, now also ends the running leaf; clear withdraws the request.',
      inputSchema: { mode: z.enum(['at-ledger', 'at-leaf', 'now', 'clear']).describe('How to stop, or clear.') },
    },
    async ({ mode }) => cli(['tdd', 'stop', mode]),
  );

  for (const action of ['validate', 'plan', 'status'] as const) {
    server.registerTool(
      `slice_${action}`,
      {
        description: {
          validate: 'Check a slice file against its schema and every rule, all violations at once (`leap slice validate FILE --json`).',
          plan: 'The waves a valid slice runs in (`leap slice plan FILE --json`).',
          status: "Where a slice stands: each ball's state, rounds and last receipt (`leap slice status FILE --json`), and the detached run slice_run started.",
        }[action],
        inputSchema: { file },
      },
      async ({ file: f }) => {
        const args = ['slice', action, resolve(cwd, f), '--json'];
        if (action !== 'status') return cli(args);
        const run = await runLeap(args, cwd, env, timeout);
        if (run.code !== 0) return binAnswer(args, run);
        return json({ status: JSON.parse(run.stdout) as unknown, detached: readDetached(detachedName('slice', resolve(cwd, f)), cwd, env) });
      },
    );
  }

  server.registerTool(
    'slice_run',
    {
      description: 'Start `leap slice run FILE` detached (balls built in waves, proven, judged, merged on the spine). Returns at once; poll with slice_status.',
      inputSchema: sliceRunInput,
    },
    async (input) => {
      const path = resolve(cwd, input.file);
      return detached(detachedName('slice', path), ['slice', 'run', path, '--json', ...optionArgs(input, cwd, ['file'])], 'slice_status');
    },
  );

  server.registerTool(
    'report',
    {
      description: "Write the self-contained HTML report of this repository's runs (`leap report --json`) and answer with its path.",
      inputSchema: { out: z.string().min(1).optional().describe("Where to write it, relative to the server's folder (default: leap-report.html in the state folder).") },
    },
    async ({ out }) => cli(['report', '--json', ...(out === undefined ? [] : [`--out=${resolve(cwd, out)}`])]),
  );

  server.registerTool(
    'verdicts',
    {
      description: "The last verdicts of issue N's run, from the event log: step, phase, PASS/REJECT/ERROR, the verifier's reason.",
      inputSchema: { issue, last: z.number().int().positive().max(500).optional().describe('How many, newest last (default 20).') },
    },
    async ({ issue: n, last }) => {
      const { readEvents } = await import('@leap/core/schemas');
      const events = statePaths(resolveStateDir(env, cwd)).events;
      let records: EventRecord[];
      try {
        records = readEvents(events);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return json({ error: (error as Error).message }, true);
        records = [];
      }
      const verdicts = records
        .map((r) => r.event)
        .filter((e) => e.event === 'verdict' && e.issue === n)
        .map((e) => ({ ts: e.ts, step: e.step, phase: (e as { phase: string }).phase, verdict: (e as { verdict: string }).verdict, reason: (e as { reason: string }).reason }));
      return json(verdicts.slice(-(last ?? 20)));
    },
  );
  return server;
}

/** Serve on this process's stdin and stdout until the client closes stdin. */
export async function serveStdio(context: McpContext): Promise<void> {
  const server = createLeapMcpServer(context);
  const closed = new Promise<void>((done) => {
    server.server.onclose = () => done();
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}

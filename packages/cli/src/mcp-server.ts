// `leap mcp` (CONTRACT section 14): a Model Context Protocol server on stdio, on the official SDK.
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import { parseJsonObject, resolveStateDir, statePaths } from '@leap/core';
import type { EventRecord } from '@leap/core/schemas';
import { detachedName, readDetached, runLeap, startDetached, type BinRun } from './mcp-runs.js';
import { ABOUT, ANNOTATIONS, INPUTS, OUTPUTS } from './mcp-schemas.js';
import { readVersion } from './version.js';

export interface McpContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A tool run to its end is killed past this (default 120 s). */
  toolTimeoutMs?: number;
  /** How long a detached start waits for an early end, so bad input is answered at once (default 3 s). */
  settleMs?: number;
}

export const MCP_TOOLS = [
  'tdd_run',
  'tdd_status',
  'tdd_stop',
  'slice_validate',
  'slice_plan',
  'slice_run',
  'slice_status',
  'report',
  'verdicts',
  'workers',
] as const;

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
  return {
    content: [
      { type: 'text', text: `leap ${args.join(' ')}: exit ${run.code ?? 'killed'}${text === '' ? '' : `\n${text}`}` },
    ],
    isError: run.code !== 0,
  };
}

function json(value: object, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
    isError,
  };
}

// An exit other than 0 answers as the CLI's error, unless `dataOnError` (its JSON still says what is wrong).
function jsonAnswer(args: string[], run: BinRun, dataOnError: boolean): CallToolResult {
  const value = parseJsonObject(run.stdout.trim());
  return value === null || (run.code !== 0 && !dataOnError) ? binAnswer(args, run) : json(value, run.code !== 0);
}

function createLeapMcpServer(context: McpContext): McpServer {
  const { cwd, env } = context;
  const timeout = context.toolTimeoutMs ?? 120_000;
  const settle = context.settleMs ?? 3_000;
  const server = new McpServer({ name: 'leap', version: readVersion() });
  const cliJson = async (args: string[], dataOnError = false) =>
    jsonAnswer(args, await runLeap(args, cwd, env, timeout), dataOnError);
  const withDetached = async (args: string[], name: string) => {
    const run = await runLeap(args, cwd, env, timeout);
    const status = parseJsonObject(run.stdout.trim());
    return run.code !== 0 || status === null
      ? binAnswer(args, run)
      : json({ status, detached: readDetached(name, cwd, env) });
  };
  const detached = async (name: string, args: string[], poll: string) => {
    const state = await startDetached(name, args, cwd, env, settle);
    // Ended within the settling time: bad input (the CLI's own error), or work that was already done.
    return json({ ...state, poll }, !state.running && state.code !== 0);
  };

  const tool = <K extends keyof typeof INPUTS>(name: K, handler: ToolCallback<(typeof INPUTS)[K]>) => {
    const output = (OUTPUTS as Partial<Record<K, ZodRawShape>>)[name];
    const config = { title: ANNOTATIONS[name].title, description: ABOUT[name], inputSchema: INPUTS[name] };
    server.registerTool(name, { ...config, annotations: ANNOTATIONS[name], outputSchema: output }, handler as never);
  };

  tool('tdd_run', async (input) =>
    detached(
      detachedName('tdd', String(input.issue)),
      ['tdd', 'run', `--issue=${input.issue}`, '--json', ...optionArgs(input, cwd, ['issue'])],
      'tdd_status',
    ),
  );
  tool('tdd_status', async ({ issue: n }) =>
    withDetached(['tdd', 'status', `--issue=${n}`, '--json'], detachedName('tdd', String(n))),
  );
  tool('tdd_stop', async ({ mode }) =>
    binAnswer(['tdd', 'stop', mode], await runLeap(['tdd', 'stop', mode], cwd, env, timeout)),
  );
  // An invalid slice (exit 1) is an error whose structured content still lists every violation.
  tool('slice_validate', async ({ file }) => cliJson(['slice', 'validate', resolve(cwd, file), '--json'], true));
  tool('slice_plan', async ({ file }) => cliJson(['slice', 'plan', resolve(cwd, file), '--json']));
  tool('slice_status', async ({ file }) =>
    withDetached(['slice', 'status', resolve(cwd, file), '--json'], detachedName('slice', resolve(cwd, file))),
  );
  tool('slice_run', async (input) => {
    const path = resolve(cwd, input.file);
    return detached(
      detachedName('slice', path),
      ['slice', 'run', path, '--json', ...optionArgs(input, cwd, ['file'])],
      'slice_status',
    );
  });
  tool('report', async ({ out }) =>
    cliJson(['report', '--json', ...(out === undefined ? [] : [`--out=${resolve(cwd, out)}`])]),
  );
  tool('verdicts', async ({ issue: n, last }) =>
    lastVerdicts(statePaths(resolveStateDir(env, cwd)).events, n, last ?? 20),
  );
  tool('workers', async ({ redis }) =>
    cliJson(['workers', '--json', ...(redis === undefined ? [] : [`--redis=${redis}`])]),
  );
  return server;
}

/** The last verdicts of issue `n` in the event log: an unreadable log is an error, a missing one has none. */
async function lastVerdicts(events: string, n: number, last: number): Promise<CallToolResult> {
  const { readEvents } = await import('@leap/core/schemas');
  let records: EventRecord[];
  try {
    records = readEvents(events);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    records = [];
  }
  const verdicts = records
    .map((r) => r.event)
    .filter((e) => e.event === 'verdict' && e.issue === n)
    .map((e) => {
      const { phase, verdict, reason } = e as { phase: string; verdict: string; reason: string };
      return { ts: e.ts, step: e.step, phase, verdict, reason };
    });
  return json({ verdicts: verdicts.slice(-last) });
}

export async function serveStdio(context: McpContext): Promise<void> {
  const server = createLeapMcpServer(context);
  const closed = new Promise<void>((done) => {
    server.server.onclose = () => done();
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}

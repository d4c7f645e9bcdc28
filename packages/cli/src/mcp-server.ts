// `leap mcp` (CONTRACT section 14): a Model Context Protocol server on stdio, on the official SDK.
import { resolve } from 'node:path';
import { McpServer, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import { type EventRecord, parseJsonObject, readEvents, resolveStateDir, statePaths } from '@leap/core';
import { detachedName, readDetached, runLeap, startDetached, type BinRun } from './mcp-runs.js';
import { ABOUT, ANNOTATIONS, INPUTS, OUTPUTS } from './mcp-schemas.js';
import { readVersion } from './version.js';

export const MCP_TOOLS = Object.keys(INPUTS) as (keyof typeof INPUTS)[];

// The options whose values are paths: made absolute from the server's folder before the CLI sees them.
const PATH_OPTIONS = new Set(['plan', 'agents', 'out']);
const LIST_OPTIONS = new Set(['reviewers', 'alternates']);

/** The CLI's arguments for a tool's input: every value is one argv element, data and never a shell word. */
export function optionArgs(input: Record<string, unknown>, cwd: string, skip: string[] = []): string[] {
  return Object.entries(input).flatMap(([key, value]) => {
    if (skip.includes(key) || value === undefined || value === false) return [];
    if (value === true) return [`--${key}`];
    if (!Array.isArray(value))
      return [`--${key}=${PATH_OPTIONS.has(key) ? resolve(cwd, String(value)) : String(value)}`];
    return LIST_OPTIONS.has(key) ? [`--${key}=${value.join(',')}`] : value.map((v) => `--${key}=${String(v)}`);
  });
}

/** The answer of a tool that ran the CLI to its end: its output, and an error when its exit code was not 0. */
export function binAnswer(args: string[], run: BinRun): CallToolResult {
  const head = `leap ${args.join(' ')}: exit ${run.code ?? 'killed'}`;
  const text = [head, run.stdout.trimEnd(), run.stderr.trimEnd()].filter((t) => t !== '').join('\n');
  return { content: [{ type: 'text', text }], isError: run.code !== 0 };
}

function json(value: object, isError = false): CallToolResult {
  const text = JSON.stringify(value, null, 2);
  return { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown>, isError };
}

export async function serveStdio({ cwd, env }: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const server = new McpServer({ name: 'leap', version: readVersion() });
  const cli = async (args: string[]) => binAnswer(args, await runLeap(args, cwd, env));
  // An exit other than 0 answers as the CLI's error, unless `dataOnError` (its JSON still says what is wrong).
  const cliJson = async (args: string[], dataOnError = false, wrap = (value: object): object => value) => {
    const run = await runLeap(args, cwd, env);
    const value = parseJsonObject(run.stdout.trim());
    return value === null || (run.code !== 0 && !dataOnError)
      ? binAnswer(args, run)
      : json(wrap(value), run.code !== 0);
  };
  // A run's subject names its record (an issue number, a slice's path); its target is the CLI's argument.
  const status = (kind: 'tdd' | 'slice', subject: string, target: string) =>
    cliJson([kind, 'status', target, '--json'], false, (status) => ({
      status,
      detached: readDetached(detachedName(kind, subject), cwd, env),
    }));
  const start = async (kind: 'tdd' | 'slice', subject: string, target: string, options: string[]) => {
    const args = [kind, 'run', target, '--json', ...options];
    const state = await startDetached(detachedName(kind, subject), args, cwd, env);
    // Ended within the settling time: bad input (the CLI's own error), or work that was already done.
    return json({ ...state, poll: `${kind}_status` }, !state.running && state.code !== 0);
  };
  const tool = <K extends keyof typeof INPUTS>(name: K, handler: ToolCallback<(typeof INPUTS)[K]>) => {
    const output = (OUTPUTS as Partial<Record<K, ZodRawShape>>)[name];
    const config = { title: ANNOTATIONS[name].title, description: ABOUT[name], inputSchema: INPUTS[name] };
    server.registerTool(name, { ...config, annotations: ANNOTATIONS[name], outputSchema: output }, handler as never);
  };

  tool('tdd_run', async (input) =>
    start('tdd', String(input.issue), `--issue=${input.issue}`, optionArgs(input, cwd, ['issue'])),
  );
  tool('tdd_status', async ({ issue }) => status('tdd', String(issue), `--issue=${issue}`));
  tool('tdd_stop', async ({ mode }) => cli(['tdd', 'stop', mode]));
  // An invalid slice (exit 1) is an error whose structured content still lists every violation.
  tool('slice_validate', async ({ file }) => cliJson(['slice', 'validate', resolve(cwd, file), '--json'], true));
  tool('slice_plan', async ({ file }) => cliJson(['slice', 'plan', resolve(cwd, file), '--json']));
  tool('slice_status', async ({ file }) => status('slice', resolve(cwd, file), resolve(cwd, file)));
  tool('slice_run', async (input) => {
    const path = resolve(cwd, input.file);
    return start('slice', path, path, optionArgs(input, cwd, ['file']));
  });
  tool('report', async ({ out }) => cliJson(['report', '--json', ...optionArgs({ out }, cwd)]));
  tool('verdicts', async ({ issue, last }) => lastVerdicts(env, cwd, issue, last));
  tool('workers', async ({ redis }) => cliJson(['workers', '--json', ...optionArgs({ redis }, cwd)]));
  const closed = new Promise<void>((done) => {
    server.server.onclose = () => done();
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}

/** The last verdicts of issue `n` in the event log (a missing one has none): an unreadable log is an error. */
async function lastVerdicts(env: NodeJS.ProcessEnv, cwd: string, n: number, last = 20): Promise<CallToolResult> {
  const events = statePaths(resolveStateDir(env, cwd)).events;
  let records: EventRecord[];
  try {
    records = readEvents(events);
  } catch (error) {
    return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
  }
  const verdicts = records
    .map((r) => r.event)
    .filter((e): e is Extract<typeof e, { event: 'verdict' }> => e.event === 'verdict' && e.issue === n)
    .map(({ ts, step, phase, verdict, reason }) => ({ ts, step, phase, verdict, reason }));
  return json({ verdicts: verdicts.slice(-last) });
}

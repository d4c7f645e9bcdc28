// `leap mcp`: parsing and --help; the server is mcp-server.ts (loaded only when it serves).
import { UsageError, parseCli, showValue, type Subcommand } from '@leap/core';

export const MCP_USAGE = `Usage: leap mcp

A Model Context Protocol server on stdin and stdout, for agent clients (Claude Code, Codex, Gemini CLI,
editors) to drive leap. Its tools: tdd_run (issue, and leap tdd run's options by their long names),
tdd_status (issue), tdd_stop (mode), slice_validate, slice_plan, slice_run, slice_status (each file),
report (out), verdicts (issue), workers (redis). Paths are relative to the folder it was started in.
tdd_run and slice_run start their work detached and return at once: poll tdd_status or slice_status.
Every other tool runs the leap command to its end and answers with its output; a tool's errors are the
command's. It serves until its client closes stdin. The README shows each client's config.

Exit codes: 0 the client closed the connection; 2 bad arguments.`;

export const mcpMain: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, { help: { type: 'boolean', short: 'h' } }, MCP_USAGE);
  if (values.help === true) return (io.stdout(`${MCP_USAGE}\n`), 0);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${showValue(positionals[0])}\n${MCP_USAGE}`);
  const { serveStdio } = await import('./mcp-server.js');
  await serveStdio({ cwd: io.cwd, env: io.env });
  return 0;
};

import { resolve } from 'node:path';
import type { Subcommand } from '@leap/core';
import { readSlice } from '../definition/read-slice.js';
import { mainWorktreeRoot, requireRepoRoot } from '../definition/worktree-hint.js';
import { sliceStatus, type BallStatus } from '../definition/slice-status.js';
import { reapSlice } from '../reap.js';
import { readFileCommand } from './_file-command.js';

const USAGE = `Usage: leap slice status FILE [--json]

Where a slice stands, from its records under .leap/SLICE/ in the repository of the current
folder: whether an engine runs it, its base, and each ball's state (passed, refused, held,
running, interrupted, blocked by a refused dependency, waiting on one that has not passed,
pending), rounds, last receipt, candidate hash and merge. Worktrees a dead engine left are
removed first.

Options:
  --json   print the status as one JSON object (slice, base, engine, record, balls, unreadable, reaped)
  --help   this text

Exit codes: 0 printed; 2 an unreadable or invalid slice, not in a git repository, bad arguments.`;

function ballLine(b: BallStatus, width: number): string {
  const parts = [`  ${b.ball.padEnd(width)}  ${b.state.padEnd(11)}`];
  const last = b.lastRound;
  const by = last?.fallovers === undefined ? '' : ` by ${last.builder ?? '?'} (after ${last.fallovers.join(', ')})`;
  if (b.rounds > 0) parts.push(`round ${last?.round ?? b.rounds}${by}`);
  if (b.receipt !== null) parts.push(`receipt ${b.receipt}`);
  else if (b.lastRound !== null)
    parts.push(`last round ${b.lastRound.receipt === null ? 'proof failed' : `receipt ${b.lastRound.receipt}`}`);
  if (b.candidate !== null) parts.push(`candidate ${b.candidate.slice(0, 12)}`);
  if (b.merged !== null) parts.push(`merged ${b.merged.slice(0, 12)}`);
  if (b.after.length > 0) parts.push(`after ${b.after.join(', ')}`);
  if (b.checkpoint !== null) parts.push(`checkpoint ${b.checkpoint}`);
  const reason = b.reason ?? b.lastRound?.reason ?? null;
  return `${parts.join('  ').trimEnd()}${reason === null ? '' : `\n  ${' '.repeat(width)}  ${JSON.stringify(reason)}`}`;
}

export const statusCommand: Subcommand = async (argv, io) => {
  const call = readFileCommand(argv, io, USAGE);
  if (call === null) return 0;
  const slice = readSlice(resolve(io.cwd, call.file));
  const root = mainWorktreeRoot(requireRepoRoot(io.cwd));
  const reaped = reapSlice(root, slice.id);
  const status = sliceStatus(root, slice);
  if (call.json) return (io.stdout(`${JSON.stringify({ ...status, reaped })}\n`), 0);
  const width = Math.max(...status.balls.map((b) => b.ball.length));
  const engine = status.engine === null ? 'no engine running' : `engine running (pid ${status.engine})`;
  const record = status.record === null ? '' : `, passed (record ${status.record})`;
  const head = `slice ${status.slice}: ${engine}, base ${status.base ?? '(not run yet)'}${record}`;
  const lines = [head, ...status.balls.map((b) => ballLine(b, width))];
  for (const path of reaped) lines.push(`removed the worktree ${path}, left by an engine that ended`);
  for (const problem of status.unreadable) lines.push(`unreadable record ${problem}`);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
};

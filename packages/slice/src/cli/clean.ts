// `leap slice clean FILE [--json]`: the slice's worktrees and branches go; its records stay.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Subcommand } from '@leap/core';
import { cleanSlice } from '../definition/clean-slice.js';
import { parseJsonText } from '../definition/parse-json.js';
import { SliceFileError } from '../definition/read-slice.js';
import { findRepoRoot } from '../definition/repo-root.js';
import { mainWorktreeRoot } from '../definition/worktree-hint.js';
import { ID_PATTERN } from '../definition/slice-id.js';
import { readFileCommand } from './_file-command.js';

const USAGE = `Usage: leap slice clean FILE [--json]

Remove the slice's git worktrees, then its branches leap/SLICE/* (the balls' and the spine),
in the repository of the current folder. The records under .leap/SLICE/ stay, and so does a
branch the main working tree has checked out. Only the slice's id is read from FILE, so a slice
edited since it ran (even into an invalid one) can be cleaned.

Options:
  --json   print { "slice", "worktrees": [paths], "branches": [names], "kept": [names] }
  --help   this text

Exit codes: 0 cleaned (or nothing to clean); 2 a live engine runs the slice, FILE has no valid
id, not in a git repository, bad arguments.`;

// Only the id: the file may have been edited since the slice ran.
function readSliceId(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new SliceFileError(file, [{ rule: 'read', message: `cannot read the slice file: ${(cause as Error).message}`, balls: [] }], { cause });
  }
  const parsed = parseJsonText(text);
  if ('problem' in parsed) throw new SliceFileError(file, [{ rule: 'json', message: parsed.problem, balls: [] }]);
  const id = (parsed.value as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) throw new SliceFileError(file, [{ rule: 'schema', message: `id: expected the slice's id, found ${JSON.stringify(id) ?? 'nothing'}`, balls: [], path: 'id' }]);
  return id;
}

export const cleanCommand: Subcommand = async (argv, io) => {
  const call = readFileCommand(argv, io, USAGE);
  if (call === null) return 0;
  const { file } = call;
  const id = readSliceId(resolve(io.cwd, file));
  const { worktrees, branches, kept } = cleanSlice(mainWorktreeRoot(findRepoRoot(io.cwd)), id);
  if (call.json) {
    io.stdout(`${JSON.stringify({ slice: id, worktrees, branches, kept })}\n`);
    return 0;
  }
  const lines = [
    ...worktrees.map((w) => `removed the worktree ${w}`),
    ...branches.map((b) => `deleted the branch ${b}`),
    ...kept.map((b) => `kept the branch ${b}: it is checked out in the main working tree`),
    `slice ${id}: ${worktrees.length} worktree${worktrees.length === 1 ? '' : 's'} and ${branches.length} branch${branches.length === 1 ? '' : 'es'} removed; records under .leap/${id}/ kept`,
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
};

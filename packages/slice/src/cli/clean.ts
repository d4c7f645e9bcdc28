import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, type Subcommand } from '@leap/core';
import { SliceFileError, parseJsonText } from '../definition/read-slice.js';
import { mainWorktreeRoot, requireRepoRoot } from '../definition/worktree-hint.js';
import { ID_PATTERN } from '../definition/violation.js';
import { cleanSlice, refuseWhileLive } from '../reap.js';
import { oneFile, parseWithRunner } from './_file-command.js';

const USAGE = `Usage: leap slice clean FILE [--runner NAME [its options]] [--json]

Remove the slice's git worktrees, then its branches leap/SLICE/* (the balls' and the spine),
in the repository of the current folder. The records under .leap/SLICE/ stay, and so does a
branch the main working tree has checked out. Only the slice's id is read from FILE, so a slice
edited since it ran (even into an invalid one) can be cleaned.

With --runner NAME (the runner the slice ran on, with the same options), what that runner keeps
elsewhere goes first: with bullmq, the slice's branches on the shared remote and its jobs in the
queue (finished, or left queued by a dead engine; a job being built is left to its worker).

Options:
  --runner NAME  also clean what that runner keeps of the slice (leap slice clean --runner bullmq --help)
  --json         print { "slice", "worktrees": [paths], "branches": [names], "kept": [names], "runner": [lines] }
  --help         this text

Exit codes: 0 cleaned (or nothing to clean); 2 a live engine runs the slice, FILE has no valid
id, not in a git repository, bad arguments (a runner's options it refuses: nothing removed).`;

function readSliceId(file: string): string {
  const refuse = (rule: string, message: string, more: { path?: string; cause?: unknown } = {}) => {
    const { cause, ...path } = more;
    return new SliceFileError(file, [{ rule, message, balls: [], ...path }], { cause });
  };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw refuse('read', `cannot read the slice file: ${(cause as Error).message}`, { cause });
  }
  const parsed = parseJsonText(text);
  if ('problem' in parsed) throw refuse('json', parsed.problem);
  const id = (parsed.value as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    throw refuse('schema', `id: expected the slice's id, found ${JSON.stringify(id) ?? 'nothing'}`, { path: 'id' });
  return id;
}

export const cleanCommand: Subcommand = async (argv, io) => {
  const options = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { runner, usage, values, positionals, runnerValues } = await parseWithRunner(argv, options, USAGE, io.cwd);
  if (values.help === true) return (io.stdout(`${usage}\n`), 0);
  const id = readSliceId(resolve(io.cwd, oneFile(positionals, usage)));
  const root = mainWorktreeRoot(requireRepoRoot(io.cwd));
  if (runner !== null && runner.clean === undefined)
    throw new UsageError(`--runner ${runner.name} keeps nothing of a slice to clean`);
  // A live engine is refused before the runner touches anything.
  refuseWhileLive(root, id);
  const remote = runner?.clean === undefined ? [] : await runner.clean(id, runnerValues, { cwd: io.cwd, env: io.env });
  const { worktrees, branches, kept } = cleanSlice(root, id);
  const ran = runner === null ? {} : { runner: remote };
  if (values.json === true)
    return (io.stdout(`${JSON.stringify({ slice: id, worktrees, branches, kept, ...ran })}\n`), 0);
  const lines = [
    ...remote,
    ...worktrees.map((w) => `removed the worktree ${w}`),
    ...branches.map((b) => `deleted the branch ${b}`),
    ...kept.map((b) => `kept the branch ${b}: it is checked out in the main working tree`),
    `slice ${id}: ${worktrees.length} worktree${worktrees.length === 1 ? '' : 's'} and ` +
      `${branches.length} branch${branches.length === 1 ? '' : 'es'} removed; records under .leap/${id}/ kept`,
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
};

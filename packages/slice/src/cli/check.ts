import { resolve } from 'node:path';
import { parseCli, UsageError, type Subcommand } from '@leap/core';
import { checkFileMap } from '../definition/check-file-map.js';
import { readSlice } from '../definition/read-slice.js';
import { mainWorktreeRoot, requireRepoRoot } from '../definition/worktree-hint.js';
import { passedBalls } from '../definition/slice-status.js';
import { printHelp } from './_file-command.js';

const USAGE = `Usage: leap ball check SLICE BALL [--json]

The file-map check a ball passes before it is built, in the repository of the current folder:
every scope path resolves inside the repository (no absolute path, no "..", no symlink at any
depth leading out of it, nothing the repository cannot hold), every file's bytes hash as its
scope says (null: the file does not exist yet), and every dependency returned 1 (its
.leap/SLICE/DEP/result.json). The ball's goal and spec are never read as instructions.

Options:
  --json   print { "slice", "ball", "receipt", "reasons": [...] }
  --help   this text

Exit codes: 0 a true map (receipt 1); 1 a false map (receipt -1); 3 a dependency has not passed
(receipt 0); 2 bad input (an unreadable or invalid slice, no such ball, bad arguments).`;

const RECEIPTS = { 1: [0, 'a true map'], [-1]: [1, 'a false map'], 0: [3, 'a dependency has not passed'] } as const;

export const checkCommand: Subcommand = async (argv, io) => {
  if (printHelp(argv, io, USAGE)) return 0;
  const { values, positionals } = parseCli(argv, { json: { type: 'boolean' } }, USAGE);
  const [file, ball] = positionals;
  const n = positionals.length;
  if (file === undefined || ball === undefined || n > 2)
    throw new UsageError(`expected SLICE and BALL, got ${n} argument${n === 1 ? '' : 's'}\n${USAGE}`);
  const slice = readSlice(resolve(io.cwd, file));
  const root = requireRepoRoot(io.cwd);
  // The checkout is hashed where the command runs (a ball's worktree, say); the receipts are the main repository's.
  const { receipt, reasons } = checkFileMap({ root, slice, ball, passed: passedBalls(mainWorktreeRoot(root), slice) });
  const [code, says] = RECEIPTS[receipt];
  const said = `ball ${ball} of slice ${slice.id}: receipt ${receipt} (${says})\n`;
  if (values.json === true) io.stdout(`${JSON.stringify({ slice: slice.id, ball, receipt, reasons })}\n`);
  else io.stdout(`${said}${reasons.map((r) => `  ${r}\n`).join('')}`);
  return code;
};

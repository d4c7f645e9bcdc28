import { parseCli, UsageError, type Subcommand } from '@leap/core';
import { scopeEntries } from '../definition/new-slice.js';
import { requireRepoRoot } from '../definition/worktree-hint.js';
import { printHelp } from './_file-command.js';

const USAGE = `Usage: leap ball hash PATH... [--json]

Print the scope entries of PATH... as JSON, ready to paste into a ball's "scope":
[{ "path": "src/a.js", "sha256": "<64 hex of its bytes>" }, { "path": "new.js", "sha256": null }]
null marks a file that does not exist yet (the ball creates it). Each PATH is relative to the
current folder and is checked as validation and the file-map check do: no absolute path, no "..",
no symlink leading out of the repository, nothing inside .git. Paths print relative to the
repository root, normalised ("./a//b" is "a/b"), each once.

Options:
  --json   the output is always JSON (accepted for symmetry)
  --help   this text

Exit codes: 0 printed; 2 a bad path (each is named; nothing is printed on stdout), bad arguments.`;

export const hashCommand: Subcommand = async (argv, io) => {
  if (printHelp(argv, io, USAGE)) return 0;
  const { positionals } = parseCli(argv, { json: { type: 'boolean' } }, USAGE);
  if (positionals.length === 0) throw new UsageError(`expected at least one PATH\n${USAGE}`);
  io.stdout(`${JSON.stringify(scopeEntries(requireRepoRoot(io.cwd), io.cwd, positionals), null, 2)}\n`);
  return 0;
};

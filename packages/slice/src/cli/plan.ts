import { resolve } from 'node:path';
import type { Subcommand } from '@leap/core';
import { readSlice } from '../definition/read-slice.js';
import { planWaves } from '../definition/plan-waves.js';
import { reapFrom } from '../definition/worktree-hint.js';
import { readFileCommand, sliceShape } from './_file-command.js';

const USAGE = `Usage: leap slice plan FILE [--json]

Print the waves a valid slice runs in: a ball runs once every ball it depends on passed; balls
of one wave run in parallel; file order within a wave.

Options:
  --json   print { "slice", "spine", "waves": [[ball ids], ...], "deps": { ball: [ids] } }
  --help   this text

Exit codes: 0 planned; 2 an unreadable or invalid slice (every violation is printed), bad arguments.`;

export const planCommand: Subcommand = async (argv, io) => {
  const call = readFileCommand(argv, io, USAGE);
  if (call === null) return 0;
  const slice = readSlice(resolve(io.cwd, call.file));
  await reapFrom(io.cwd, slice.id);
  const waves = planWaves(slice);
  const deps = Object.fromEntries(slice.balls.map((b) => [b.id, b.deps]));
  if (call.json) return (io.stdout(`${JSON.stringify({ slice: slice.id, spine: slice.spine, waves, deps })}\n`), 0);
  const lines = [`slice ${slice.id}: ${sliceShape(slice, waves.length)}`];
  waves.forEach((wave, i) => {
    lines.push(`wave ${i + 1}:`);
    for (const id of wave) lines.push(`  ${id}${deps[id]?.length ? `  (after ${deps[id]?.join(', ')})` : ''}`);
  });
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
};

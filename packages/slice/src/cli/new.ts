import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCli, UsageError, type Subcommand } from '@leap/core';
import { newSlice, splitBallArg, type NewBall } from '../definition/new-slice.js';
import { requireRepoRoot } from '../definition/worktree-hint.js';
import { printHelp } from './_file-command.js';

const USAGE = `Usage: leap slice new ID --ball BALL:PATH[,PATH...] [--ball ...] [options]

Write a skeleton slice file: one ball per --ball, its scope the paths given (relative to the
current folder, checked as validation does), each hashed from its bytes on disk now (null for a
file that does not exist yet: the ball creates it). Commit those files before running the slice:
the file-map check compares the hashes with the ball's checkout of the base. The skeleton is
validated before it is written; goals and specs not given are TODO lines to fill in.

Options (BALL: a ball id given with --ball; each may be repeated):
  --ball BALL:PATH[,PATH...]  a ball and scope paths (repeat to add paths to the same ball)
  --file BALL:PATH            one scope path taken whole (a path holding a comma)
  --dep BALL:DEP[,DEP...]     BALL depends on DEP
  --goal BALL:TEXT            the ball's goal (default: a TODO line)
  --spec BALL:TEXT            the ball's spec (default: a TODO line)
  --proof BALL:JSON           the proof's argv as a JSON array of strings (default: ["npm","test"])
  --base REF                  the base commit-ish (default: HEAD)
  --spine NAME                "integrator" (the default) or a ball id
  --out FILE                  write FILE (refused if it exists, unless --force) instead of stdout
  --force                     overwrite --out FILE
  --help                      this text

Exit codes: 0 written; 2 bad arguments, a bad path, a skeleton that would be invalid (each
violation named), an --out FILE that exists. Nothing is written on an error.`;

const SHORT = 'Usage: leap slice new ID --ball BALL:PATH[,PATH...] [options] (leap slice new --help tells more)';

const OPTIONS = {
  ball: { type: 'string', multiple: true },
  file: { type: 'string', multiple: true },
  dep: { type: 'string', multiple: true },
  goal: { type: 'string', multiple: true },
  spec: { type: 'string', multiple: true },
  proof: { type: 'string', multiple: true },
  base: { type: 'string' },
  spine: { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
} as const;

const BALL_VALUE = 'expected BALL:VALUE, BALL an id (1 to 64 of a-z 0-9 . _ -, starting with a letter or digit)';

function split(option: string, text: string) {
  const parts = splitBallArg(text);
  if (parts === null) throw new UsageError(`--${option} ${JSON.stringify(text)}: ${BALL_VALUE}`);
  return parts;
}

function parseProof(text: string): string[] {
  let argv: unknown;
  try {
    argv = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`--proof: expected a JSON array of strings, found ${JSON.stringify(text)}`, { cause });
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string'))
    throw new UsageError(`--proof: expected a non-empty JSON array of strings, found ${text}`);
  return argv as string[];
}

export const newCommand: Subcommand = async (argv, io) => {
  if (printHelp(argv, io, USAGE)) return 0;
  const { values, positionals } = parseCli(argv, OPTIONS, SHORT);
  const id = positionals[0];
  if (id === undefined || positionals.length > 1)
    throw new UsageError(`expected one slice ID, got ${positionals.length}\n${SHORT}`);
  const balls = new Map<string, NewBall>();
  for (const option of ['ball', 'file'] as const) {
    for (const text of values[option] ?? []) {
      const { id: ball, value } = split(option, text);
      const entry = balls.get(ball) ?? { id: ball, paths: [] };
      entry.paths.push(...(option === 'file' ? [value] : value.split(',')));
      balls.set(ball, entry);
    }
  }
  if (balls.size === 0) throw new UsageError(`expected at least one --ball BALL:PATH\n${SHORT}`);
  const known = (option: string, ball: string): NewBall => {
    const entry = balls.get(ball);
    const given = `no ball ${JSON.stringify(ball)} was given with --ball (balls: ${[...balls.keys()].join(', ')})`;
    if (entry === undefined) throw new UsageError(`--${option} ${ball}:...: ${given}`);
    return entry;
  };
  const set = {
    dep: (e: NewBall, v: string) => Object.assign(e, { deps: [...(e.deps ?? []), ...v.split(',').filter((d) => d)] }),
    goal: (e: NewBall, goal: string) => Object.assign(e, { goal }),
    spec: (e: NewBall, spec: string) => Object.assign(e, { spec }),
    proof: (e: NewBall, v: string) => Object.assign(e, { proof: parseProof(v) }),
  };
  for (const [option, apply] of Object.entries(set))
    for (const text of values[option as keyof typeof set] ?? []) {
      const { id: ball, value } = split(option, text);
      apply(known(option, ball), value);
    }
  const { base, spine } = values;
  const repoRoot = requireRepoRoot(io.cwd);
  const { slice, violations } = newSlice({ id, base, spine, balls: [...balls.values()], repoRoot, cwd: io.cwd });
  const each = violations.map((v) => `\n  ${v.message}`).join('');
  if (violations.length > 0) throw new UsageError(`the skeleton would be an invalid slice:${each}`);
  const text = `${JSON.stringify(slice, null, 2)}\n`;
  if (values.out === undefined) return (io.stdout(text), 0);
  try {
    writeFileSync(resolve(io.cwd, values.out), text, { flag: values.force === true ? 'w' : 'wx' });
  } catch (cause) {
    const exists = (cause as NodeJS.ErrnoException).code === 'EEXIST';
    const why = exists ? 'the file exists (give --force to overwrite it)' : (cause as Error).message;
    throw new UsageError(`--out ${values.out}: ${why}`, { cause });
  }
  const n = slice.balls.length;
  io.stderr(`wrote ${values.out}: slice ${slice.id}, ${n} ball${n === 1 ? '' : 's'}\n`);
  return 0;
};

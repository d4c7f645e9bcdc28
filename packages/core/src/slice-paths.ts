// The one layout of a slice's records under `.leap/` (CONTRACT section 7), for the engine and its readers alike.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { orElse } from './errors.js';

export const LEAP_DIR = '.leap';
export const ROUND_RECORD = /^round-([1-9][0-9]*)\.json$/;
/** Slice and ball ids start with a letter or digit, so `.worktrees`, `.gitignore` and the like never match. */
export const RECORD_ID = /^[a-z0-9]/;

// FNV-1a, 64 bits, of a path's bytes: a folder name per repository (no node:crypto to load for it).
function pathKey(path: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(path)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

export function slicePaths(repoRoot: string, slice: string) {
  const leap = join(repoRoot, LEAP_DIR);
  const dir = join(leap, slice);
  const ball = (id: string) => join(dir, id);
  // Outside the repository (no parent-folder config applies), not in `~/.cache` (leaves write it); a gone one as given.
  const real = orElse(() => realpathSync.native(resolve(repoRoot)), resolve(repoRoot));
  const xdg = process.env.XDG_STATE_HOME;
  const state = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  const worktrees = join(state, 'leap', 'worktrees', `${basename(real).slice(0, 48)}-${pathKey(real)}`, slice);
  return {
    leap,
    dir,
    run: join(dir, 'run.json'),
    /** A passed slice's provenance, the one record meant to be committed. */
    record: join(dir, 'record.json'),
    /** The integrator's records (`spine` is a reserved ball id). */
    aggregate: join(dir, 'spine', 'aggregate.json'),
    worktrees,
    worktree: (id: string) => join(worktrees, id),
    ball,
    round: (id: string, n: number) => join(ball(id), `round-${n}.json`),
    result: (id: string) => join(ball(id), 'result.json'),
    checkpoint: (id: string) => join(ball(id), 'checkpoint.md'),
    champion: (id: string) => join(ball(id), 'champion.json'),
    /** A distributed round's place on the queue (the bullmq runner's engine writes it, the view reads it). */
    remoteRound: (id: string) => join(ball(id), 'remote-round.json'),
  };
}
export type SlicePaths = ReturnType<typeof slicePaths>;

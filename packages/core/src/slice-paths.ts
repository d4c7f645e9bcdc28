// The one layout of a slice's records under `.leap/` (CONTRACT section 7), for the engine and its readers alike.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';

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

/** Outside the repository (tools find no parent-folder config), not in `~/.cache`, which sandboxed leaves may write. */
function worktreesHome(repoRoot: string): string {
  let real = resolve(repoRoot);
  try {
    real = realpathSync.native(real);
  } catch {
    // A repository that is gone: its name as given.
  }
  const xdg = process.env.XDG_STATE_HOME;
  const state = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(state, 'leap', 'worktrees', `${basename(real).slice(0, 48)}-${pathKey(real)}`);
}

export function slicePaths(repoRoot: string, slice: string) {
  const leap = join(repoRoot, LEAP_DIR);
  const dir = join(leap, slice);
  const ball = (id: string) => join(dir, id);
  const worktrees = join(worktreesHome(repoRoot), slice);
  return {
    leap,
    dir,
    run: join(dir, 'run.json'),
    /** A passed slice's provenance, the one record meant to be committed. */
    record: join(dir, 'record.json'),
    /** The integrator's records (`spine` is a reserved ball id). */
    aggregate: join(dir, 'spine', 'aggregate.json'),
    /** The slice's ball worktrees, `worktreesHome(repoRoot)/SLICE/BALL`: outside the repository. */
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

// The one layout of a slice's records under `.leap/` (CONTRACT section 7): the engine writes them through
// these names, `leap slice status` and the view read them through the same ones.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';

/** The folder of every slice's records, at the repository's top. */
export const LEAP_DIR = '.leap';

/** A round's record file name, `round-N.json` (N from 1); its match's group 1 is N. */
export const ROUND_RECORD = /^round-([1-9][0-9]*)\.json$/;

/**
 * A name under `.leap/` (or under a slice's folder) that can be a slice's (or a ball's) records: ids start
 * with a letter or digit, so `.worktrees`, `.gitignore` and the engine's other files never are.
 */
export const RECORD_ID = /^[a-z0-9]/;

// FNV-1a, 64 bits, of a path's bytes: a folder name per repository (no node:crypto to load for it).
function pathKey(path: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(path)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

/**
 * The folder of a repository's ball worktrees: `$XDG_STATE_HOME/leap/worktrees/NAME-HASH` (else `~/.local/state/...`),
 * outside the repository, so a tool that looks for its config in parent folders finds none of the main tree's; not in
 * `~/.cache`, which a sandboxed writer may write (its build caches), so no ball's leaf writes a sibling's worktree.
 */
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

/** The paths of one slice's records. */
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

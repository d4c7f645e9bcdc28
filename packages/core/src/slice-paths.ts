// The one layout of a slice's records under `.leap/` (CONTRACT section 7): the engine writes them through
// these names, `leap slice status` and the view read them through the same ones.
import { join } from 'node:path';

/** The folder of every slice's records, at the repository's top. */
export const LEAP_DIR = '.leap';

/** A round's record file name, `round-N.json` (N from 1); its match's group 1 is N. */
export const ROUND_RECORD = /^round-([1-9][0-9]*)\.json$/;

/**
 * A name under `.leap/` (or under a slice's folder) that can be a slice's (or a ball's) records: ids start
 * with a letter or digit, so `.worktrees`, `.gitignore` and the engine's other files never are.
 */
export const RECORD_ID = /^[a-z0-9]/;

/** The paths of one slice's records. */
export function slicePaths(repoRoot: string, slice: string) {
  const leap = join(repoRoot, LEAP_DIR);
  const dir = join(leap, slice);
  const ball = (id: string) => join(dir, id);
  return {
    leap,
    dir,
    run: join(dir, 'run.json'),
    /** A passed slice's provenance, the one record meant to be committed. */
    record: join(dir, 'record.json'),
    /** The integrator's records (`spine` is a reserved ball id). */
    aggregate: join(dir, 'spine', 'aggregate.json'),
    /** Worktrees live in `.leap/.worktrees/SLICE/` (no slice or ball id starts with a dot), ignored by git. */
    worktrees: join(leap, '.worktrees', slice),
    worktree: (id: string) => join(leap, '.worktrees', slice, id),
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

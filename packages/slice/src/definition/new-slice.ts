// `leap slice new`: a skeleton slice, scope hashed from disk, validated before it is written; gaps are TODO lines.
import { scopeEntries } from './scope-entries.js';
import { ID_PATTERN } from './slice-id.js';
import type { Slice } from './slice-schema.js';
import { validateSlice } from './read-slice.js';
import type { Violation } from './violation.js';

export type NewBall = { id: string; paths: string[]; deps?: string[]; goal?: string; spec?: string; proof?: string[] };

type NewSliceOptions = { id: string; base?: string; spine?: string; balls: NewBall[]; repoRoot: string; cwd: string };

const LIVE_TODO =
  'the command that exercises the real surface: ' +
  'the built command, a request to the started server, the page in Chromium';

export function newSlice(options: NewSliceOptions): { slice: Slice; violations: Violation[] } {
  const slice: Slice = {
    id: options.id,
    base: options.base ?? 'HEAD',
    spine: options.spine ?? 'integrator',
    balls: options.balls.map((b) => ({
      id: b.id,
      goal: b.goal ?? `TODO: the one falsifiable outcome of ${b.id}`,
      spec: b.spec ?? 'TODO: everything the builder needs to succeed without asking, as data',
      scope: scopeEntries(options.repoRoot, options.cwd, b.paths),
      proof: { argv: b.proof ?? ['npm', 'test'] },
      // To fill in: a TODO program that does not exist, so a skeleton's ball cannot pass on it unchanged.
      live: { argv: ['TODO-live-proof', LIVE_TODO], timeout_s: 60, network: false },
      rollback: `restore the scope's files of ${b.id} to base`,
      deps: b.deps ?? [],
    })),
  };
  return { slice, violations: validateSlice(slice) };
}

/** Split `ID:VALUE` (ids hold no colon); null when `text` does not start with an id and a colon. */
export function splitBallArg(text: string): { id: string; value: string } | null {
  const at = text.indexOf(':');
  if (at <= 0) return null;
  const id = text.slice(0, at);
  return ID_PATTERN.test(id) ? { id, value: text.slice(at + 1) } : null;
}

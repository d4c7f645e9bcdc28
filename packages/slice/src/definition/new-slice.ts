// `leap slice new`: a skeleton slice, scope hashed from disk, validated before it is written; gaps are TODO lines.
import { relative, resolve, sep } from 'node:path';
import { UsageError } from '@leap/core';
import { hashFile, resolveInRepo } from './resolve-in-repo.js';
import { normalizeScopePath, scopePathProblem } from './scope-path.js';
import type { Slice } from './slice-schema.js';
import { validateSlice } from './read-slice.js';
import { ID_PATTERN } from './violation.js';

export type NewBall = { id: string; paths: string[]; deps?: string[]; goal?: string; spec?: string; proof?: string[] };

type NewSliceOptions = { id: string; base?: string; spine?: string; balls: NewBall[]; repoRoot: string; cwd: string };

const LIVE_TODO =
  'the command that exercises the real surface: ' +
  'the built command, a request to the started server, the page in Chromium';

export function newSlice(options: NewSliceOptions) {
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

// Scope entries for paths a person names (`leap ball hash`, `leap slice new`): checked as validation does, hashed.
function scopeEntry(repoRoot: string, cwd: string, given: string): { path: string; sha256: string | null } | string {
  const why = scopePathProblem(given);
  if (why !== null) return why;
  const inRepo = relative(resolve(repoRoot), resolve(cwd, normalizeScopePath(given))).replaceAll(sep, '/');
  const later = scopePathProblem(inRepo);
  if (inRepo.startsWith('../') || later !== null) return `${later ?? 'is outside the repository'} (from ${cwd})`;
  const state = resolveInRepo(repoRoot, inRepo);
  if (state.kind === 'problem') return state.problem;
  return { path: inRepo, sha256: state.kind === 'file' ? hashFile(repoRoot, inRepo) : null };
}

/** Each path's entry (relative to `cwd`, inside `repoRoot`), in order, once; a UsageError (exit 2) names bad paths. */
export function scopeEntries(repoRoot: string, cwd: string, paths: readonly string[]) {
  const problems: string[] = [];
  const entries = new Map<string, { path: string; sha256: string | null }>();
  for (const given of paths) {
    const entry = scopeEntry(repoRoot, cwd, given);
    if (typeof entry === 'string') problems.push(`${JSON.stringify(given)} ${entry}`);
    else if (!entries.has(entry.path)) entries.set(entry.path, entry);
  }
  if (problems.length === 1) throw new UsageError(problems[0] as string);
  if (problems.length > 1) throw new UsageError(`${problems.length} bad paths:\n  ${problems.join('\n  ')}`);
  return [...entries.values()];
}

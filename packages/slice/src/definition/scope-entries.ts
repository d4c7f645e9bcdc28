// Scope entries for paths a person names (`leap ball hash`, `leap slice new`): checked as validation does, hashed.
import { relative, resolve, sep } from 'node:path';
import { UsageError } from '@leap/core';
import { hashFile } from './hash-file.js';
import { resolveInRepo } from './resolve-in-repo.js';
import { normalizeScopePath, scopePathProblem } from './scope-path.js';

export type HashedEntry = { path: string; sha256: string | null };

/** Each path's entry (relative to `cwd`, inside `repoRoot`), in order, once; a UsageError (exit 2) names bad paths. */
export function scopeEntries(repoRoot: string, cwd: string, paths: readonly string[]): HashedEntry[] {
  const problems: string[] = [];
  const entries: HashedEntry[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    const why = scopePathProblem(given);
    if (why !== null) {
      problems.push(`${JSON.stringify(given)} ${why}`);
      continue;
    }
    const inRepo = relative(resolve(repoRoot), resolve(cwd, normalizeScopePath(given))).replaceAll(sep, '/');
    const later = scopePathProblem(inRepo);
    if (inRepo.startsWith('../') || later !== null) {
      problems.push(`${JSON.stringify(given)} ${later ?? 'is outside the repository'} (from ${cwd})`);
      continue;
    }
    const state = resolveInRepo(repoRoot, inRepo);
    if (state.kind === 'problem') {
      problems.push(`${JSON.stringify(given)} ${state.problem}`);
      continue;
    }
    if (seen.has(inRepo)) continue;
    seen.add(inRepo);
    entries.push({ path: inRepo, sha256: state.kind === 'file' ? hashFile(repoRoot, inRepo) : null });
  }
  if (problems.length === 1) throw new UsageError(problems[0] as string);
  if (problems.length > 1) throw new UsageError(`${problems.length} bad paths:\n  ${problems.join('\n  ')}`);
  return entries;
}

// CONTRACT section 7's file-map check in a ball's fresh checkout: paths and hashes, else -1; dependencies, else 0.
import { LeapError } from '@leap/core';
import { hashFile } from './hash-file.js';
import { ignoredPaths } from './ignored-paths.js';
import { normalizeScopePath } from './scope-path.js';
import { resolveInRepo } from './resolve-in-repo.js';
import type { Receipt, Slice } from './slice-schema.js';

export interface CheckFileMapOptions {
  root: string;
  slice: Slice;
  ball: string;
  passed: ReadonlySet<string>;
}

export interface FileMapCheck {
  receipt: Receipt;
  reasons: string[];
}

/** Check one ball's file map in `root`; throws a LeapError (exit 2) when the slice has no such ball. */
export function checkFileMap(options: CheckFileMapOptions): FileMapCheck {
  const ball = options.slice.balls.find((b) => b.id === options.ball);
  if (ball === undefined) {
    throw new LeapError(
      `slice ${JSON.stringify(options.slice.id)} has no ball ${JSON.stringify(options.ball)} (its balls: ${options.slice.balls.map((b) => b.id).join(', ')})`,
      { exitCode: 2 },
    );
  }
  const falseMap: string[] = [];
  const fine: string[] = [];
  const states = ball.scope.map((entry) => resolveInRepo(options.root, entry.path));
  const ignored = ignoredPaths(
    options.root,
    ball.scope.filter((_, i) => states[i]?.kind !== 'problem').map((e) => normalizeScopePath(e.path)),
  );
  ball.scope.forEach((entry, i) => {
    const name = JSON.stringify(entry.path);
    const state = states[i] as ReturnType<typeof resolveInRepo>;
    if (state.kind === 'problem') {
      falseMap.push(`${name} ${state.problem}`);
      return;
    }
    const rule = ignored.get(normalizeScopePath(entry.path));
    if (rule !== undefined) {
      falseMap.push(`${name} is ignored by git (${rule}), so the repository cannot hold the ball's work on it`);
      return;
    }
    const actual = state.kind === 'file' ? hashFile(options.root, entry.path) : null;
    if (entry.sha256 === null && actual !== null)
      falseMap.push(`${name} exists (sha256 ${actual}), but the scope says the ball creates it (sha256 null)`);
    else if (entry.sha256 !== null && actual === null)
      falseMap.push(`${name} does not exist, but the scope gives its sha256 ${entry.sha256}`);
    else if (entry.sha256 !== actual)
      falseMap.push(`${name} has changed: its sha256 is ${actual}, the scope says ${entry.sha256}`);
    else
      fine.push(
        actual === null
          ? `${name} does not exist yet, as the scope says (the ball creates it)`
          : `${name} matches its sha256 ${actual}`,
      );
  });
  if (falseMap.length > 0) return { receipt: -1, reasons: falseMap };
  const waiting = ball.deps.filter((d) => !options.passed.has(d));
  if (waiting.length > 0)
    return { receipt: 0, reasons: waiting.map((d) => `dependency ${JSON.stringify(d)} has not returned 1 yet`) };
  return { receipt: 1, reasons: fine };
}

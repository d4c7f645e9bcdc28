// CONTRACT section 7's file-map check in a ball's fresh checkout: paths and hashes, else -1; dependencies, else 0.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError, runGitSync } from '@leap/core';
import { normalizeScopePath } from './scope-path.js';
import { hashFile, resolveInRepo } from './resolve-in-repo.js';
import type { Receipt, Slice } from './slice-schema.js';

export type CheckFileMapOptions = { root: string; slice: Slice; ball: string; passed: ReadonlySet<string> };
export type FileMapCheck = { receipt: Receipt; reasons: string[] };

/** Check one ball's file map in `root`; throws a LeapError (exit 2) when the slice has no such ball. */
export function checkFileMap(options: CheckFileMapOptions): FileMapCheck {
  const ball = options.slice.balls.find((b) => b.id === options.ball);
  if (ball === undefined) {
    const balls = `(its balls: ${options.slice.balls.map((b) => b.id).join(', ')})`;
    const message = `slice ${JSON.stringify(options.slice.id)} has no ball ${JSON.stringify(options.ball)} ${balls}`;
    throw new LeapError(message, { exitCode: 2 });
  }
  const falseMap: string[] = [];
  const fine: string[] = [];
  const states = ball.scope.map((entry) => resolveInRepo(options.root, entry.path));
  const kept = ball.scope.filter((_, i) => states[i]?.kind !== 'problem').map((e) => normalizeScopePath(e.path));
  const ignored = ignoredPaths(options.root, kept);
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
    else if (actual === null) fine.push(`${name} does not exist yet, as the scope says (the ball creates it)`);
    else fine.push(`${name} matches its sha256 ${actual}`);
  });
  if (falseMap.length > 0) return { receipt: -1, reasons: falseMap };
  const waiting = ball.deps.filter((d) => !options.passed.has(d));
  if (waiting.length > 0)
    return { receipt: 0, reasons: waiting.map((d) => `dependency ${JSON.stringify(d)} has not returned 1 yet`) };
  return { receipt: 1, reasons: fine };
}

// Each path git ignores in `root`, with its rule (`.gitignore:3:build/`): a ball's work there would never be committed.
function ignoredPaths(root: string, paths: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  if (paths.length === 0 || !existsSync(join(root, '.git'))) return found;
  const input = `${paths.join('\0')}\0`;
  const run = runGitSync(['check-ignore', '-z', '-v', '--stdin'], { cwd: root, input, allowFailure: true });
  // git refuses the list over a path it cannot check (past a symlink): each is asked alone, and that one not ignored.
  if (run.code === 128 && paths.length > 1) {
    for (const path of paths) for (const [p, rule] of ignoredPaths(root, [path])) found.set(p, rule);
    return found;
  }
  if (run.code !== 0) return found;
  const fields = run.stdout.split('\0');
  for (let i = 0; i + 3 < fields.length; i += 4)
    found.set(fields[i + 3] as string, `${fields[i]}:${fields[i + 1]}:${fields[i + 2]}`);
  return found;
}

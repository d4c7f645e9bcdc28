// Scope paths git ignores: a ball's work there would never be committed, merged or seen. One check-ignore a ball.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runGitSync } from '@leap/core';

/** Each path of `paths` that git ignores in the checkout `root`, with the rule ignoring it (`.gitignore:3:build/`). */
export function ignoredPaths(root: string, paths: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  if (paths.length === 0 || !existsSync(join(root, '.git'))) return found;
  // Tracked files are never reported (git holds them whatever the rules); arguments are data (stdin, NUL-separated).
  const run = runGitSync(['check-ignore', '-z', '-v', '--stdin'], {
    cwd: root,
    input: `${paths.join('\0')}\0`,
    allowFailure: true,
  });
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

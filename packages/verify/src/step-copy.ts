// The step's own runs (canary, second run) where cheapest: a copy without the project's other test entry files.
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { GroundTruthOptions } from './ground-truth.js';
import { workTreeHash } from './run-suite.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import { listFiles } from './step-tests.js';
import { testFilePredicate } from './test-files.js';

type CopyOptions = Pick<GroundTruthOptions, 'repo' | 'stateDir' | 'env' | 'testFiles' | 'testCmd'>;

// A file a runner takes as tests of its own, not a helper, a fixture or a conftest.
const ENTRY = /(?:^|\/)(?:[^/]*[._-](?:test|spec)s?\.[^/]+|test[_-][^/]+|test\.[^/]+|tests\/[^/]+\.rs)$/;

/** Test commands whose run of the step's files alone named nothing: this process runs them on the whole copy. */
export const notAlone = new Set<string>();

/** `alone`: the other test entry files left out, except a Go package's `_test.go` (they may hold its helpers). */
export async function withStepCopy<T>(
  options: CopyOptions,
  head: string,
  files: readonly string[],
  alone: boolean,
  work: (dir: string, env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const skip = [topLevelName(options.repo, options.stateDir)].filter((n): n is string => n !== null);
  const tree = workTreeHash(options.repo, options.stateDir) ?? undefined;
  const others = alone ? otherEntries(options, files) : [];
  const inCopy = (dir: string) => {
    for (const path of others) rmSync(join(dir, path), { force: true });
    return work(dir, { ...options.env, CARGO_TARGET_DIR: join(dirname(dir), 'cargo-target') });
  };
  return withScratchTree(options.repo, head, skip, inCopy, [], tree);
}

function otherEntries(options: CopyOptions, files: readonly string[]): string[] {
  const isTest = testFilePredicate(options.testFiles);
  const goDirs = new Set(files.filter((f) => f.endsWith('_test.go')).map((f) => dirname(f)));
  const keep = (path: string) => files.includes(path) || (path.endsWith('_test.go') && goDirs.has(dirname(path)));
  const entry = (path: string) => isTest(path) && ENTRY.test(path) && basename(path) !== 'conftest.py';
  return listFiles(options.repo).filter((path) => entry(path) && !keep(path));
}

// Whether a folder's file system folds case (macOS, Windows, ext4 casefold): found by looking, writing no file.
import { lstatSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { orElse } from '@leap/core';

const swapCase = (name: string): string =>
  [...name].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('');

/** True when `dir` (or, failing an entry with letters there, the nearest parent that has one) folds case. */
export function foldsCase(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    const name = orElse(() => readdirSync(at), []).find((n) => swapCase(n) !== n);
    if (name !== undefined)
      return orElse(() => {
        const [a, b] = [lstatSync(join(at, name)), lstatSync(join(at, swapCase(name)))];
        return a.ino === b.ino && a.dev === b.dev;
      }, false);
    if (dirname(at) === at) return false;
  }
}

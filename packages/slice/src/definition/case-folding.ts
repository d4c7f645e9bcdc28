// Whether a folder's file system folds case (macOS, Windows, ext4 casefold): found by looking, writing no file.
import { lstatSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const swapCase = (name: string): string =>
  [...name].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('');

/** True when `dir` (or, failing an entry with letters there, the nearest parent that has one) folds case. */
export function foldsCase(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    let names: string[] = [];
    try {
      names = readdirSync(at);
    } catch {}
    const name = names.find((n) => swapCase(n) !== n);
    if (name !== undefined) {
      try {
        const a = lstatSync(join(at, name));
        const b = lstatSync(join(at, swapCase(name)));
        return a.ino === b.ino && a.dev === b.dev;
      } catch {
        return false;
      }
    }
    if (dirname(at) === at) return false;
  }
}

// `leap --version` (CONTRACT section 12): @leap/cli's own package.json, the one file changesets bumps.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@leap/cli';

/** The folder of the nearest package.json named @leap/cli above `from` (a file URL or path), and its version. */
export function findPackageRoot(from: string = import.meta.url): { dir: string; version: string } {
  let dir = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (;;) {
    let text: string | null = null;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch {
      // no package.json here: look further up
    }
    if (text !== null) {
      const manifest = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE && typeof manifest.version === 'string') return { dir, version: manifest.version };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${PACKAGE} above ${from}`);
    dir = parent;
  }
}

export function readVersion(from: string = import.meta.url): string {
  return findPackageRoot(from).version;
}

/** The `leap` bin of this installation (the package's shim, which loads the bundle). */
export function leapBin(): string {
  return join(findPackageRoot().dir, 'bin', 'leap.cjs');
}

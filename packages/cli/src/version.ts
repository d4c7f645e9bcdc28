// `leap --version` (CONTRACT section 12): @leap/cli's own package.json, the one file changesets bumps.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { orElse } from '@leap/core';

const PACKAGE = '@leap/cli';

/** The folder of the nearest package.json named @leap/cli above `from` (a file URL or path), and its version. */
export function findPackageRoot(from: string = import.meta.url): { dir: string; version: string } {
  for (let dir = dirname(from.startsWith('file:') ? fileURLToPath(from) : from); ; dir = dirname(dir)) {
    const text = orElse(() => readFileSync(join(dir, 'package.json'), 'utf8'), null);
    const manifest = (text === null ? {} : JSON.parse(text)) as { name?: unknown; version?: unknown };
    if (manifest.name === PACKAGE && typeof manifest.version === 'string') return { dir, version: manifest.version };
    if (dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE} above ${from}`);
  }
}

export const readVersion = (from?: string): string => findPackageRoot(from).version;

/** The `leap` bin of this installation (the package's shim, which loads the bundle). */
export const leapBin = (): string => join(findPackageRoot().dir, 'bin', 'leap.cjs');

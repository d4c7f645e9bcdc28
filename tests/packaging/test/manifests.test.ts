// Every package declares what its bundled bins require: esbuild inlines the @leap/* code a bin uses and leaves
// every other package a require() of the bundle (knip reads the sources, not the bundles: knip.jsonc says so).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const packageName = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string);

function bundles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.cjs'))
    .map((e) => join(e.parentPath, e.name));
}

test('each package with bins declares every package its bundles require', () => {
  let checked = 0;
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      const files = bundles(join(dir, 'dist', 'bin'));
      if (files.length === 0) continue;
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
      };
      const declared = new Set(Object.keys(manifest.dependencies ?? {}));
      for (const file of files) {
        for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\brequire\("([^"./][^"]*)"\)/g)) {
          if (specifier === undefined || specifier.startsWith('node:')) continue;
          const needed = packageName(specifier);
          assert.ok(
            declared.has(needed),
            `${manifest.name}: ${file.slice(root.length + 1)} requires ${needed}, which its package.json does not declare`,
          );
          checked += 1;
        }
      }
    }
  }
  assert.ok(checked > 0, 'the bundles were found (built before this test)');
});

test.run();

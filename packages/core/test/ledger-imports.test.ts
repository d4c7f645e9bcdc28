// The ledger module is on the start-up path of `leap-ledger current`: it may
// import node built-ins, its own modules and ../errors.js, and nothing else.
import { readFileSync, readdirSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const folder = new URL('../src/ledger/', import.meta.url);
const specifiers = (file: URL): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map(
    (m) => m[1] as string,
  );

const imports = suite('ledger imports');

imports('only node built-ins, sibling modules and ../errors.js', () => {
  const files = readdirSync(folder).filter((name) => name.endsWith('.ts'));
  assert.ok(files.length >= 5, `only ${files.length} modules read`);
  for (const name of files) {
    for (const specifier of specifiers(new URL(name, folder))) {
      const sibling =
        /^\.\/[a-z_-]+\.js$/.test(specifier) && files.includes(specifier.slice(2).replace(/\.js$/, '.ts'));
      assert.ok(
        sibling || specifier === '../errors.js' || specifier.startsWith('node:'),
        `${name} imports ${specifier}`,
      );
    }
  }
});

imports('../errors.js imports nothing at all', () => {
  assert.equal(specifiers(new URL('../src/errors.ts', import.meta.url)), []);
});

imports('index.ts holds named re-exports only, and re-exports no internal module', () => {
  const source = readFileSync(new URL('index.ts', folder), 'utf8');
  const statements = source.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('//'));
  for (const line of statements) assert.match(line, /^export (?:type )?\{ [\w, ]+ \} from '\.\/[a-z-]+\.js';$/);
  assert.not.match(source, /from '\.\/_/);
});

imports.run();

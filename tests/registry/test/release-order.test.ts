// The release script's order and refusals, on manifests made here (no registry): a package is published
// only after the @leap/* packages it depends on; a dependency on a private package, a cycle, or a bad
// argument stops it before anything is published.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { repoRoot, runCommand } from '@leap/test-utils';
// @ts-expect-error: a plain ES module script, without declarations
import { publishOrder, publishWaves, workspacePackages } from '../../../.changeset/release.mjs';

interface Pkg {
  dir: string;
  manifest: {
    name: string;
    version: string;
    private?: boolean;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
}
const order = publishOrder as (packages: Pkg[]) => Pkg[];
const waves = publishWaves as (packages: Pkg[]) => Pkg[][];
const pkg = (name: string, deps: string[] = [], extra: Partial<Pkg['manifest']> = {}): Pkg => ({
  dir: `/x/${name}`,
  manifest: { name, version: '1.0.0', dependencies: Object.fromEntries(deps.map((d) => [d, '^1.0.0'])), ...extra },
});

test('each package comes after every workspace package it depends on; devDependencies do not order it', () => {
  const names = order([
    pkg('@a/cli', ['@a/engine', 'zod']),
    pkg('@a/engine', ['@a/core']),
    pkg('@a/core'),
    pkg('@a/tests', [], { private: true, devDependencies: { '@a/cli': '^1.0.0' } }),
  ]).map((p) => p.manifest.name);
  assert.equal(names, ['@a/core', '@a/engine', '@a/cli']);
  const dev = order([pkg('@a/one', [], { devDependencies: { '@a/two': '^1.0.0' } }), pkg('@a/two', ['@a/one'])]).map(
    (p) => p.manifest.name,
  );
  assert.equal(dev, ['@a/one', '@a/two']);
});

test('waves: a package is in the first wave after all of its workspace dependencies; the packages of a wave depend on none of each other', () => {
  const names = waves([
    pkg('@a/cli', ['@a/engine', '@a/view']),
    pkg('@a/engine', ['@a/core']),
    pkg('@a/view', ['@a/core']),
    pkg('@a/core'),
    pkg('@a/lone'),
    pkg('@a/tests', [], { private: true }),
  ]).map((wave) => wave.map((p) => p.manifest.name).sort());
  assert.equal(names, [['@a/core', '@a/lone'], ['@a/engine', '@a/view'], ['@a/cli']]);
  const workspace = waves((workspacePackages as () => Pkg[])());
  const seen = new Set<string>();
  for (const wave of workspace) {
    for (const p of wave) {
      for (const dep of Object.keys(p.manifest.dependencies ?? {}).filter((d) => d.startsWith('@leap/')))
        assert.ok(seen.has(dep), `${p.manifest.name} is published before ${dep}`);
    }
    for (const p of wave) seen.add(p.manifest.name);
  }
  assert.ok(
    workspace.length < order((workspacePackages as () => Pkg[])()).length,
    'the workspace is published in fewer waves than packages',
  );
});

test('a run-time dependency on a private package, or a cycle, is refused with the names', () => {
  assert.throws(
    () => order([pkg('@a/lib', ['@a/helpers']), pkg('@a/helpers', [], { private: true })]),
    /@a\/lib depends on @a\/helpers, which is private/,
  );
  assert.throws(
    () => order([pkg('@a/x', ['@a/y']), pkg('@a/y', ['@a/x'])]),
    /a dependency cycle: @a\/x -> @a\/y -> @a\/x/,
  );
});

test('the workspace itself: every public package once, none depending on a private one', () => {
  const packages = (workspacePackages as () => Pkg[])();
  const names = order(packages).map((p) => p.manifest.name);
  assert.equal(
    [...names].sort(),
    packages
      .filter((p) => p.manifest.private !== true)
      .map((p) => p.manifest.name)
      .sort(),
  );
  assert.ok(names.indexOf('@leap/core') === 0, `core first: ${names.join(' ')}`);
});

test('an unknown argument is exit 2 with the usage, before anything runs', async () => {
  const bad = await runCommand(process.execPath, [join(repoRoot, '.changeset', 'release.mjs'), '--registry'], {
    cwd: repoRoot,
  });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /unexpected argument "--registry"[\s\S]*Usage: node \.changeset\/release\.mjs/);
});

test.run();

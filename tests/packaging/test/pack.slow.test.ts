import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { $ } from 'zx';
import { cleanupTempDirs, commandLimitMs, makeTempDir, repoRoot } from '@leap/test-utils';

const sh = (cwd: string, nothrow = false) => $({ cwd, nothrow, quiet: true, timeout: commandLimitMs() });

interface Manifest {
  name: string;
  private?: boolean;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
}

const folders = ['packages', 'plugins']
  .flatMap((top) =>
    existsSync(join(repoRoot, top)) ? readdirSync(join(repoRoot, top)).map((d) => join(repoRoot, top, d)) : [],
  )
  .filter((d) => existsSync(join(d, 'package.json')));
const manifests = new Map<string, { dir: string; manifest: Manifest }>(
  folders.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    return [manifest.name, { dir, manifest }];
  }),
);

// The @leap/* packages a package needs at run time, itself included.
function closure(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const dep of Object.keys(manifests.get(name)?.manifest.dependencies ?? {})) {
    if (dep.startsWith('@leap/')) {
      assert.ok(manifests.has(dep), `${name} depends on ${dep}, which is not in the workspace`);
      closure(dep, seen);
    }
  }
  return seen;
}

const tarballs = new Map<string, string>();
async function pack(name: string, into: string): Promise<string> {
  const known = tarballs.get(name);
  if (known !== undefined) return known;
  const { dir } = manifests.get(name)!;
  const out = await sh(dir)`npm pack --json --pack-destination ${into}`;
  const file = join(into, (JSON.parse(out.stdout) as { filename: string }[])[0]!.filename);
  tarballs.set(name, file);
  return file;
}

const withBins = [...manifests.values()].filter((m) => m.manifest.bin !== undefined && m.manifest.private !== true);

const packaging = suite('npm pack, install into an empty project, run the bins');
packaging.after(cleanupTempDirs);

packaging('every package with a bin is covered', () => {
  assert.ok(withBins.length >= 1, 'no package with a bin was found');
  assert.ok(withBins.some((m) => m.manifest.name === '@leap/core'));
});

for (const { manifest } of withBins) {
  packaging(`${manifest.name}: installs alone from its tarball and its bins run`, async () => {
    const packs = makeTempDir('leap-packs-');
    const project = makeTempDir('leap-consumer-');
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    const files: string[] = [];
    for (const name of closure(manifest.name)) files.push(await pack(name, packs));
    await sh(project)`npm install --no-audit --no-fund --prefer-offline --ignore-scripts ${files}`;
    for (const binName of Object.keys(manifest.bin ?? {})) {
      const shim = join(project, 'node_modules', '.bin', binName);
      assert.ok(existsSync(shim), `${binName} is not linked into node_modules/.bin`);
      const help = await sh(project, true)`${shim} --help`;
      assert.is(help.exitCode, 0, `${binName} --help: ${help.stderr}`);
      assert.match(help.stdout, /Usage:/);
    }
    // The library entry points import from the installed package, not from the workspace.
    const script = `const m = await import(${JSON.stringify(manifest.name)}); process.stdout.write(String(Object.keys(m).length > 0))`;
    const entry = await sh(project, true)`${process.execPath} --input-type=module -e ${script}`;
    assert.is(entry.stdout.trim(), 'true', entry.stderr);
  });
}

packaging.run();

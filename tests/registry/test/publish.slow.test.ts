// Every package published to a real npm registry on loopback (Verdaccio, no uplinks) by the release
// script, then installed from it into empty folders outside the repository as a user would (issue 23 §1):
// each bin through npx, the umbrella installed globally and through npx -p, each library imported from
// plain ESM and from TypeScript with its types. Slow: a dozen real npm installs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessOutput } from 'zx';
import { cleanupTempDirs, git, hostileTitles, makeTempDir, repoRoot } from '@leap/test-utils';
import { installVerdaccio, mirror, sh, show, startRegistry, thirdPartyPackages, type Registry } from './registry.js';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  types?: string;
  exports?: Record<string, unknown>;
}

const manifests: Manifest[] = ['packages', 'plugins'].flatMap((top) =>
  readdirSync(join(repoRoot, top))
    .map((d) => join(repoRoot, top, d, 'package.json'))
    .filter((f) => existsSync(f))
    .map((f) => JSON.parse(readFileSync(f, 'utf8')) as Manifest),
);
const publicPackages = manifests.filter((m) => m.private !== true);
const cli = publicPackages.find((m) => m.name === '@leap/cli')!;

/** What `import` can name in a package: its exports' keys, less package.json and the file globs. */
function entryPoints(m: Manifest): string[] {
  return Object.keys(m.exports ?? { '.': '' })
    .filter((key) => key !== './package.json' && !key.includes('*'))
    .map((key) => (key === '.' ? m.name : `${m.name}/${key.slice(2)}`));
}

const registryTest = suite('published to a loopback registry, installed from it');
let registry: Registry | undefined;

// Set up in a test of its own, not in before(): uvu reports a failing before() as nothing at all.
registryTest(
  'Verdaccio starts on a free loopback port and holds the third-party packages an install needs',
  async () => {
    const bin = await installVerdaccio();
    registry = await startRegistry(bin);
    assert.match(registry.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    // What a consumer's install needs besides @leap/*, and @types/node for the TypeScript consumer.
    await mirror(registry, thirdPartyPackages(['@types/node', 'undici-types']));
    // No uplinks: what was not published here is not found, though the public registry has it.
    const absent = await npm('npm', ['view', 'left-pad', 'version'], makeTempDir('leap-absent-'));
    assert.is.not(absent.exitCode, 0, 'the loopback registry answered for a package nobody published to it');
  },
);
registryTest.after(async () => {
  await registry?.stop();
  cleanupTempDirs();
});

function reg(): Registry {
  assert.ok(registry, 'the registry did not start');
  return registry!;
}

/** npm (or npx) in `cwd` against the loopback registry. */
function npm(command: 'npm' | 'npx', args: string[], cwd: string, input?: string): Promise<ProcessOutput> {
  return sh(cwd, reg().env, { nothrow: true, ...(input === undefined ? {} : { input }) })`${command} ${args}`;
}

/** The release script against the loopback registry, as a maintainer runs it (versions and tags left alone). */
function release(): Promise<ProcessOutput> {
  const script = join(repoRoot, '.changeset', 'release.mjs');
  const args = ['--no-version', '--no-build', '--no-tag', '--registry', reg().url];
  return sh(repoRoot, reg().env, { nothrow: true })`${process.execPath} ${script} ${args}`;
}

/** An empty project outside the repository: a git repository with a package.json and nothing else. */
function consumer(prefix: string): string {
  const dir = makeTempDir(prefix);
  assert.not.ok(dir.startsWith(repoRoot), `${dir} is inside the repository`);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

registryTest('the release script publishes every public package, in dependency order, at its version', async () => {
  const first = await release();
  assert.is(first.exitCode, 0, show('release', first));
  const order = [...first.stderr.matchAll(/^release: npm publish .*\(in (.+)\)$/gm)].map(
    (m) => JSON.parse(readFileSync(join(m[1]!, 'package.json'), 'utf8')).name as string,
  );
  assert.equal([...order].sort(), publicPackages.map((m) => m.name).sort(), 'each public package published once');
  assert.ok(
    order.indexOf('@leap/core') < order.indexOf('@leap/ledger') &&
      order.indexOf('@leap/conductor') < order.indexOf('@leap/cli'),
    `order: ${order.join(' ')}`,
  );
  for (const m of publicPackages) {
    const view = await npm('npm', ['view', `${m.name}@${m.version}`, 'version'], repoRoot);
    assert.is(view.stdout.trim(), m.version, show(`npm view ${m.name}`, view));
  }
  // Run again: every version is there already, nothing is published twice.
  const again = await release();
  assert.is(again.exitCode, 0, show('release again', again));
  assert.not.match(again.stderr, /npm publish/);
  assert.is([...again.stderr.matchAll(/is already published/g)].length, publicPackages.length);
});

registryTest('npm i -D @leap/supervise, then npx leap-supervise NAME true runs the leaf supervised', async () => {
  const dir = consumer('leap-supervise-user-');
  const install = await npm('npm', ['i', '-D', '@leap/supervise'], dir);
  assert.is(install.exitCode, 0, show('npm i -D @leap/supervise', install));
  const run = await npm('npx', ['leap-supervise', 'first-leaf', 'true'], dir);
  assert.is(run.exitCode, 0, show('npx leap-supervise first-leaf true', run));
  assert.match(run.stderr, /supervise\[first-leaf\]: exited/);
  assert.is(readFileSync(join(dir, '.tdd', 'first-leaf.exit'), 'utf8').split('\n')[0], '0');
  // The leaf's own failure comes back as its code.
  const failing = await npm('npx', ['leap-supervise', 'second-leaf', 'false'], dir);
  assert.is(failing.exitCode, 1, show('npx leap-supervise second-leaf false', failing));
});

registryTest(
  'npm i -D @leap/ledger, then leap-ledger current on a piped ledger prints the step, byte for byte',
  async () => {
    const dir = consumer('leap-ledger-user-');
    const install = await npm('npm', ['i', '-D', '@leap/ledger'], dir);
    assert.is(install.exitCode, 0, show('npm i -D @leap/ledger', install));
    const title = hostileTitles(2)[1]!;
    const ledger = `# Issue 7: hostile\n\n## Steps\n\n- [x] done first\n- [ ] ${title}\n- [ ] after it\n`;
    const current = await npm('npx', ['leap-ledger', 'current'], dir, ledger);
    assert.is(current.exitCode, 0, show('leap-ledger current', current));
    assert.is(current.stdout, `${title}\n`);
  },
);

registryTest(
  'npm i -D of each package with a bin, each alone in its own project: every bin it declares runs through npx (--help)',
  async () => {
    // Each package in an empty project of its own (it installs alone), three installs side by side.
    const withBins = publicPackages.filter((p) => p.bin !== undefined);
    assert.ok(withBins.length >= 5, `packages with a bin: ${withBins.map((m) => m.name).join(' ')}`);
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < withBins.length) {
        const m = withBins[next++]!;
        const dir = consumer('leap-bin-user-');
        const install = await npm('npm', ['i', '-D', m.name], dir);
        if (install.exitCode !== 0) {
          failures.push(show(`npm i -D ${m.name}`, install));
          continue;
        }
        for (const bin of Object.keys(m.bin!)) {
          const help = await npm('npx', ['--no-install', bin, '--help'], dir);
          if (help.exitCode !== 0 || !new RegExp(`^Usage: ${bin.replace(/-/g, '\\-')}\\b`, 'm').test(help.stdout))
            failures.push(show(`${m.name}: npx ${bin} --help`, help));
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    assert.equal(failures, []);
  },
);

registryTest('npm i -g @leap/cli into a fresh prefix: leap --version, then leap demo', async () => {
  const prefix = makeTempDir('leap-global-');
  const install = await npm('npm', ['i', '-g', '--prefix', prefix, '@leap/cli'], makeTempDir('leap-global-cwd-'));
  assert.is(install.exitCode, 0, show('npm i -g @leap/cli', install));
  const leap = join(prefix, 'bin', 'leap');
  assert.ok(existsSync(leap), 'npm linked no leap into PREFIX/bin');
  const path = `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`;
  const cwd = makeTempDir('leap-global-user-');
  const direct = await sh(cwd, { ...reg().env, PATH: path }, { nothrow: true })`leap --version`;
  assert.is(direct.exitCode, 0, show('leap --version', direct));
  assert.is(direct.stdout, `${cli.version}\n`);
  const demoDir = join(makeTempDir('leap-global-demo-'), 'slug-demo');
  const demo = await sh(cwd, { ...reg().env, PATH: path }, { nothrow: true })`leap demo --dir ${demoDir}`;
  assert.is(demo.exitCode, 0, show('leap demo', demo));
  assert.ok(existsSync(join(demoDir, '.tdd', 'issue-1.md')), 'leap demo left no ledger');
  assert.not.match(readFileSync(join(demoDir, '.tdd', 'issue-1.md'), 'utf8'), /- \[ \]/, 'a step is left unchecked');
});

registryTest('npx -p @leap/cli leap demo, with nothing installed', async () => {
  const cwd = makeTempDir('leap-npx-user-');
  const demoDir = join(makeTempDir('leap-npx-demo-'), 'slug-demo');
  const demo = await npm('npx', ['--yes', '-p', '@leap/cli', 'leap', 'demo', '--dir', demoDir], cwd);
  assert.is(demo.exitCode, 0, show('npx -p @leap/cli leap demo', demo));
  assert.ok(existsSync(join(demoDir, '.tdd', 'issue-1.md')), 'leap demo left no ledger');
  assert.not.ok(existsSync(join(cwd, 'node_modules')), 'npx installed into the folder it ran in');
});

registryTest('every package imports from plain ESM and type-checks from TypeScript with its own types', async () => {
  const dir = consumer('leap-library-user-');
  const install = await npm('npm', ['i', ...publicPackages.map((m) => m.name), '@types/node'], dir);
  assert.is(install.exitCode, 0, show('npm i (every package)', install));
  // Plain ESM: every entry point each package exports loads; the issue's own example first.
  const specs = publicPackages.flatMap((m) => entryPoints(m));
  writeFileSync(
    join(dir, 'esm.mjs'),
    [
      "import { tick } from '@leap/ledger';",
      "if (typeof tick !== 'function') throw new Error('tick is not a function');",
      'const names = {};',
      ...specs.map(
        (spec) => `names[${JSON.stringify(spec)}] = Object.keys(await import(${JSON.stringify(spec)})).sort();`,
      ),
      'process.stdout.write(JSON.stringify(names));',
      '',
    ].join('\n'),
  );
  const esm = await sh(dir, reg().env, { nothrow: true })`${process.execPath} esm.mjs`;
  assert.is(esm.exitCode, 0, show('node esm.mjs', esm));
  const exported = JSON.parse(esm.stdout) as Record<string, string[]>;
  for (const m of publicPackages) {
    assert.ok(
      entryPoints(m).some((spec) => exported[spec]!.length > 0),
      `no entry point of ${m.name} exports anything`,
    );
  }
  // TypeScript: each entry point resolves to its own declarations (an untyped one is implicitly any,
  // which a strict compile refuses; a name that is not exported must be an error, which any would not give).
  const lines = ["import { tick } from '@leap/ledger';", 'export const ticked: typeof tick = tick;'];
  specs.forEach((spec, i) => {
    const name = exported[spec]!.find((n) => n !== 'default');
    lines.push(`import * as p${i} from ${JSON.stringify(spec)};`);
    if (name === undefined) {
      lines.push(`export const empty${i}: Record<string, never> = { ...p${i} };`);
      return;
    }
    lines.push(
      `export const known${i}: keyof typeof p${i} = ${JSON.stringify(name)};`,
      '// @ts-expect-error: not an export of the package',
      `export const unknown${i}: keyof typeof p${i} = 'no-such-export-of-this-package';`,
    );
  });
  writeFileSync(join(dir, 'index.ts'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        types: ['node'],
        skipLibCheck: true,
      },
      files: ['index.ts'],
    }),
  );
  const tsc = await sh(dir, process.env, {
    nothrow: true,
  })`${process.execPath} ${join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')} -p tsconfig.json`;
  assert.is(tsc.exitCode, 0, show('tsc', tsc));
});

registryTest.run();

// The README's way to use the toolchain from a clone before it is published: the release script packs
// every public package (`--pack DIR`), and `npm i -D DIR/*.tgz` in the user's own repository installs
// them all, after which `npx leap` and the drop-in bins run there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { $, type ProcessOutput } from 'zx';
import { cleanupTempDirs, commandLimitMs, git, makeTempDir, repoRoot } from '@leap/test-utils';

test.after(cleanupTempDirs);

function show(what: string, r: ProcessOutput): string {
  return `${what}: exit ${r.exitCode ?? r.signal}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;
}

// Without the outer npm's variables (npm test sets npm_config_local_prefix to the repository, among others).
function env(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|NX_)/i.test(key) && key !== 'INIT_CWD'),
  );
}

test("release.mjs --pack DIR, then npm i -D DIR/*.tgz in a repository of the user's: npx leap and npx leap-supervise run", async () => {
  const packs = makeTempDir('leap-packs-');
  const sh = (cwd: string) => $({ cwd, env: env(), nothrow: true, quiet: true, timeout: commandLimitMs() });
  const pack = await sh(repoRoot)`${process.execPath} .changeset/release.mjs --no-version --no-build --pack ${packs}`;
  assert.is(pack.exitCode, 0, show('release.mjs --pack', pack));
  const publicNames = ['packages', 'plugins'].flatMap((top) =>
    readdirSync(join(repoRoot, top))
      .map((d) => join(repoRoot, top, d, 'package.json'))
      .filter((f) => existsSync(f))
      .map((f) => JSON.parse(readFileSync(f, 'utf8')) as { name: string; private?: boolean })
      .filter((m) => m.private !== true)
      .map((m) => m.name),
  );
  const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  assert.is(tarballs.length, publicNames.length, `one tarball per public package: ${tarballs.join(' ')}`);
  assert.not.ok(
    tarballs.some((f) => f.includes('test-utils')),
    'the private test helpers were packed',
  );

  const repo = makeTempDir('leap-users-repo-');
  writeFileSync(
    join(repo, 'package.json'),
    `${JSON.stringify({ name: 'users-project', version: '1.0.0', private: true }, null, 2)}\n`,
  );
  git(repo, 'init', '-q', '-b', 'main');
  const install = await sh(repo)`npm i -D --no-audit --no-fund --prefer-offline ${tarballs.map((f) => join(packs, f))}`;
  assert.is(install.exitCode, 0, show('npm i -D DIR/*.tgz', install));
  const { version } = JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')) as {
    version: string;
  };
  const leap = await sh(repo)`npx --no-install leap --version`;
  assert.is(leap.exitCode, 0, show('npx leap --version', leap));
  assert.is(leap.stdout, `${version}\n`);
  const leaf = await sh(repo)`npx --no-install leap-supervise first-leaf true`;
  assert.is(leaf.exitCode, 0, show('npx leap-supervise first-leaf true', leaf));
  assert.is(readFileSync(join(repo, '.tdd', 'first-leaf.exit'), 'utf8').split('\n')[0], '0');
});

test.run();

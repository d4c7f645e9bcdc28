#!/usr/bin/env node
// What installing the umbrella costs a user (issue 42 point 9): `npm i -D @leap/cli` as it will be from the
// registry, emulated with packed tarballs. Installs @leap/cli's tarball and those of the @leap/* packages it
// needs (its dependency closure, read from the tarballs' own manifests) into a new project, then counts the
// packages npm added and the size of node_modules.
//
//   node bench/install-size.mjs DIR    (DIR: the tarballs of `node .changeset/release.mjs --no-version --pack DIR`)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '');
const tarballs = new Map();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.tgz'))) {
  const manifest = JSON.parse(
    execFileSync('tar', ['-xOzf', join(dir, file), 'package/package.json'], { encoding: 'utf8' }),
  );
  tarballs.set(manifest.name, { file: join(dir, file), manifest });
}
const closure = new Set();
const visit = (name) => {
  if (closure.has(name) || !tarballs.has(name)) return;
  closure.add(name);
  for (const dep of Object.keys(tarballs.get(name).manifest.dependencies ?? {})) visit(dep);
};
visit('@leap/cli');
const project = mkdtempSync(join(tmpdir(), 'leap-install-size-'));
try {
  writeFileSync(join(project, 'package.json'), '{"name": "users-project", "private": true}\n');
  const files = [...closure].map((name) => tarballs.get(name).file);
  const said = execFileSync('npm', ['i', '-D', '--no-audit', '--no-fund', '--prefer-offline', ...files], {
    cwd: project,
    encoding: 'utf8',
  });
  const added = /added (\d+) packages?/.exec(said)?.[1];
  const kib = Number(execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
  const external = readdirSync(join(project, 'node_modules')).filter(
    (n) => n !== '.bin' && n !== '.package-lock.json' && n !== '@leap',
  ).length;
  process.stdout.write(
    `${JSON.stringify({ leap: [...closure].sort(), added: Number(added), node_modules_mb: Math.round(kib / 102.4) / 10, top_level_others: external })}\n`,
  );
} finally {
  rmSync(project, { recursive: true, force: true });
}

#!/usr/bin/env node
// The release: `changeset version` (versions and changelogs from the changesets in this folder), the
// lockfile brought in line, a build, then `npm publish` of every public workspace package in
// dependency order (a package only after each @leap/* package it depends on), skipping a version the
// registry already has, so a release interrupted half-way is finished by running it again.
//
//   node .changeset/release.mjs [--no-version] [--no-build] [--no-tag] [--dry-run] [--registry URL]
//   node .changeset/release.mjs --no-version --pack DIR
//
// --pack DIR writes every public package's tarball into DIR instead of publishing (installing them all,
// `npm i -D DIR/*.tgz`, is the README's way to use the toolchain from a clone before it is published).
// --no-version publishes the versions as they stand; --no-tag skips `changeset tag` (git tags
// NAME@VERSION); --registry is passed to npm (default: npm's own configuration). Exit 0 published
// (or nothing to publish), 1 a step failed (the packages before it stay published), 2 bad input.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'Usage: node .changeset/release.mjs [--no-version] [--no-build] [--no-tag] [--dry-run] [--registry URL] [--pack DIR]';

function parse(argv) {
  const options = { version: true, build: true, tag: true, dryRun: false, registry: undefined, pack: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--no-version') options.version = false;
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--no-tag') options.tag = false;
    else if (arg === '--dry-run') options.dryRun = true;
    else if (arg === '--registry' && argv[i + 1] !== undefined) options.registry = argv[++i];
    else if (arg === '--pack' && argv[i + 1] !== undefined) options.pack = resolve(argv[++i]);
    else if (arg === '--help') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      process.stderr.write(`release: unexpected argument ${JSON.stringify(arg)}\n${usage}\n`);
      process.exit(2);
    }
  }
  return options;
}

/** Every workspace package: its folder and manifest (the root's workspaces globs are all `DIR/*`). */
export function workspacePackages() {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return rootManifest.workspaces.flatMap((glob) => {
    const top = join(root, glob.replace(/\/\*$/, ''));
    return readdirSync(top)
      .map((d) => join(top, d))
      .filter((d) => existsSync(join(d, 'package.json')))
      .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));
  });
}

/** The public packages, each after every workspace package it depends on at run time. */
export function publishOrder(packages) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const order = [];
  const state = new Map();
  const visit = (name, path) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`a dependency cycle: ${[...path, name].join(' -> ')}`);
    state.set(name, 'visiting');
    const { manifest } = byName.get(name);
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies })) {
      if (byName.has(dep)) {
        if (byName.get(dep).manifest.private === true) throw new Error(`${name} depends on ${dep}, which is private and never published`);
        visit(dep, [...path, name]);
      }
    }
    state.set(name, 'done');
    order.push(byName.get(name));
  };
  for (const p of packages) if (p.manifest.private !== true) visit(p.manifest.name, []);
  return order;
}

function run(command, args, cwd = root) {
  process.stderr.write(`release: ${command} ${args.join(' ')}${cwd === root ? '' : `  (in ${cwd})`}\n`);
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`release: ${command} ${args[0] ?? ''} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(1);
  }
}

function published(name, version, registry) {
  const args = ['view', `${name}@${version}`, 'version', '--json', ...(registry ? ['--registry', registry] : [])];
  try {
    return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
  } catch {
    return false; // E404: not there yet
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = parse(process.argv.slice(2));
  if (options.version) {
    run('npx', ['--no-install', 'changeset', 'version']);
    run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--ignore-scripts']);
  }
  if (options.build) run('npm', ['run', 'build']);
  const registry = options.registry ? ['--registry', options.registry] : [];
  if (options.pack !== undefined) {
    mkdirSync(options.pack, { recursive: true });
    for (const { dir } of publishOrder(workspacePackages())) run('npm', ['pack', '--ignore-scripts', '--pack-destination', options.pack], dir);
    process.exit(0);
  }
  for (const { dir, manifest } of publishOrder(workspacePackages())) {
    if (published(manifest.name, manifest.version, options.registry)) {
      process.stderr.write(`release: ${manifest.name}@${manifest.version} is already published\n`);
      continue;
    }
    run('npm', ['publish', '--ignore-scripts', ...registry, ...(options.dryRun ? ['--dry-run'] : [])], dir);
  }
  if (options.tag && !options.dryRun) run('npx', ['--no-install', 'changeset', 'tag']);
}

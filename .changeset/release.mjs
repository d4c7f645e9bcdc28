#!/usr/bin/env node
// The release: `changeset version` (versions and changelogs from the changesets in this folder), the
// lockfile brought in line, a build, the declarations (tools/declarations.mjs), then `npm publish` of every
// public workspace package in dependency order (a package only after each @leap/* package it depends on;
// the packages of one such wave side by side, four npm processes at a time), skipping a version the
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
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { $ } from 'zx';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const usage =
  'Usage: node .changeset/release.mjs [--no-version] [--no-build] [--no-tag] [--dry-run] [--registry URL] [--pack DIR]';

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
    for (const dep of Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    })) {
      if (byName.has(dep)) {
        if (byName.get(dep).manifest.private === true)
          throw new Error(`${name} depends on ${dep}, which is private and never published`);
        visit(dep, [...path, name]);
      }
    }
    state.set(name, 'done');
    order.push(byName.get(name));
  };
  for (const p of packages) if (p.manifest.private !== true) visit(p.manifest.name, []);
  return order;
}

/**
 * The same packages in waves: each wave holds the packages whose workspace dependencies are all in
 * earlier waves, so a wave's packages can be published side by side, each after what it depends on.
 */
export function publishWaves(packages) {
  const order = publishOrder(packages);
  const names = new Set(order.map((p) => p.manifest.name));
  const level = new Map();
  for (const p of order) {
    const deps = Object.keys({
      ...p.manifest.dependencies,
      ...p.manifest.peerDependencies,
      ...p.manifest.optionalDependencies,
    }).filter((d) => names.has(d));
    level.set(p.manifest.name, deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => level.get(d))));
  }
  const waves = [];
  for (const p of order) (waves[level.get(p.manifest.name)] ??= []).push(p);
  return waves;
}

/** Run `task` on every item, at most `limit` at a time; resolves when all are done, in the items' order. */
async function eachAtMost(limit, items, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A command run beside others: its output (both streams) is kept, to be printed whole when it ends. */
async function runAside(command, args, cwd) {
  const result = await $({ cwd, quiet: true, nothrow: true })`${command} ${args}`;
  return { code: result.exitCode ?? result.signal, text: result.stdall };
}

async function run(command, args) {
  process.stderr.write(`release: ${command} ${args.join(' ')}\n`);
  const result = await $({ cwd: root, stdio: 'inherit', nothrow: true })`${command} ${args}`;
  if (result.exitCode !== 0) {
    process.stderr.write(`release: ${command} ${args[0] ?? ''} failed (exit ${result.exitCode ?? result.signal})\n`);
    process.exit(1);
  }
}

async function published(name, version, registry) {
  const args = ['view', `${name}@${version}`, 'version', '--json', ...(registry ? ['--registry', registry] : [])];
  const result = await runAside('npm', args, root);
  // Exit non-zero is E404: not there yet. (npm prints the version, or nothing for a version it lacks.)
  return result.code === 0 && result.text.trim() !== '' && !/npm (error|ERR!)/.test(result.text);
}

/** One package of a wave: published unless the registry has its version already. */
async function publishOne({ dir, manifest }, options, registry) {
  if (await published(manifest.name, manifest.version, options.registry)) {
    process.stderr.write(`release: ${manifest.name}@${manifest.version} is already published\n`);
    return true;
  }
  const args = ['publish', '--ignore-scripts', ...registry, ...(options.dryRun ? ['--dry-run'] : [])];
  const result = await runAside('npm', args, dir);
  process.stderr.write(`release: npm ${args.join(' ')}  (in ${dir})\n${result.text}`);
  if (result.code !== 0)
    process.stderr.write(`release: npm publish of ${manifest.name} failed (exit ${result.code})\n`);
  return result.code === 0;
}

/** How many npm processes a wave runs side by side. */
const SIDE_BY_SIDE = 4;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = parse(process.argv.slice(2));
  if (options.version) {
    await run('npx', ['--no-install', 'changeset', 'version']);
    await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--ignore-scripts']);
  }
  if (options.build) await run('npm', ['run', 'build']);
  await run(process.execPath, [join(root, 'tools', 'declarations.mjs')]);
  const registry = options.registry ? ['--registry', options.registry] : [];
  if (options.pack !== undefined) {
    mkdirSync(options.pack, { recursive: true });
    const packs = await eachAtMost(SIDE_BY_SIDE, publishOrder(workspacePackages()), async ({ dir }) => {
      const args = ['pack', '--ignore-scripts', '--pack-destination', options.pack];
      const result = await runAside('npm', args, dir);
      process.stderr.write(`release: npm ${args.join(' ')}  (in ${dir})\n${result.text}`);
      return result.code === 0;
    });
    process.exit(packs.every(Boolean) ? 0 : 1);
  }
  // Wave by wave: a package is published only once every workspace package it depends on is; a failure
  // ends the release after its wave (what was published stays; running again finishes it).
  for (const wave of publishWaves(workspacePackages())) {
    const done = await eachAtMost(SIDE_BY_SIDE, wave, (p) => publishOne(p, options, registry));
    if (!done.every(Boolean)) process.exit(1);
  }
  if (options.tag && !options.dryRun) await run('npx', ['--no-install', 'changeset', 'tag']);
}

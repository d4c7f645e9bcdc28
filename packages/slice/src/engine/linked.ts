// The repository's ignored top-level entries (node_modules, a venv) linked into each checkout; never a ball's change.
import { existsSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LEAP_DIR, orElse } from '@leap/core';
import { DEFAULT_LINK_READ_ONLY, type SandboxSpec } from '@leap/supervise';
import { git } from './git.js';

// Each checkout makes its own outputs and caches: the main tree's, linked, would be read-only in a sandbox.
const BUILD_OUTPUTS = ['dist', 'build', 'out', 'target', 'coverage', '.nyc_output', '.cache', '.vite'];
const FRAMEWORK_CACHES = ['.next', '.nuxt', '.turbo', '.parcel-cache', '.nx'];
const PYTHON_CACHES = ['__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.nox'];

const IGNORED = 'ls-files -z --others --ignored --exclude-standard --directory --no-empty-directory'.split(' ');

/** The ignored top-level entries a checkout shares (no build output); [] if git cannot say. */
export async function ignoredEntries(repoRoot: string, stateDir: string): Promise<string[]> {
  const out = await git(repoRoot, IGNORED).catch(() => '');
  const own = [...BUILD_OUTPUTS, ...FRAMEWORK_CACHES, ...PYTHON_CACHES];
  const skip = new Set(['.git', LEAP_DIR, relative(repoRoot, stateDir).split('/')[0], ...own]);
  return out
    .split('\0')
    .map((e) => e.replace(/\/$/, ''))
    .filter((name) => name !== '' && !name.includes('/') && !skip.has(name));
}

/** A link of the user's is followed: a sandbox shows the target, not the links on the way. */
export function linkEntries(repoRoot: string, dir: string, names: readonly string[]): string[] {
  const linked = names.filter((name) => !existsSync(join(dir, name)));
  for (const name of linked) {
    const entry = join(repoRoot, name);
    symlinkSync(orElse(() => realpathSync(entry), null) ?? entry, join(dir, name));
  }
  return linked;
}

/** Where each entry linked into `dir` leads now (read when a round starts: the runner's links). */
export function readLinks(dir: string, linked: readonly string[]): Map<string, string> {
  const links = linked.map((name) => [name, orElse(() => readlinkSync(join(dir, name)), null)] as const);
  return new Map(links.filter((link): link is readonly [string, string] => link[1] !== null));
}

/** Undo a builder's own (ignored) node_modules: a proof runs with the user's dependencies, never the builder's. */
export function restoreLinks(dir: string, links: ReadonlyMap<string, string>): string[] {
  const restored: string[] = [];
  for (const [name, target] of links) {
    const path = join(dir, name);
    if (orElse(() => readlinkSync(path), null) === target) continue;
    rmSync(path, { recursive: true, force: true });
    symlinkSync(target, path);
    restored.push(name);
  }
  return restored;
}

/** The entries linked into `dir`, and where they lead: never the ball's to change. */
export function linkedPlaces(dir: string, linked: readonly string[]): string[] {
  return [...linked.map((name) => join(dir, name)), ...targets(dir, linked)];
}

function targets(dir: string, linked: readonly string[]): string[] {
  return linked.flatMap((name) => orElse(() => realpathSync(join(dir, name)), null) ?? []);
}

/** Dependency folders get a throwaway layer for tools' caches (vite's .vite-temp): the main install is no ball's. */
export function withLinked(spec: SandboxSpec, dir: string, linked: readonly string[]): SandboxSpec {
  const deps = new Set(DEFAULT_LINK_READ_ONLY);
  const layers = targets(dir, linked.filter(deps.has, deps));
  const read = [...(spec.read ?? []), ...targets(dir, linked)];
  return { ...spec, read, layers: [...(spec.layers ?? []), ...layers.map((t) => ({ dir: t, over: t }))] };
}

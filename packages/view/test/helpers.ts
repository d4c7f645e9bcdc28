// Shared by the view's tests: recorded logs in real git repositories, an in-process io, the built
// umbrella bin (rebuilt when older than this package's sources), and a real run of the demo.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SubcommandIo } from '@leap/core';
import { makeGitRepo, makeTempDir, repoRoot } from '@leap/test-utils';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, 'fixtures');
export const OUTPUT = join(HERE, '..', 'test-output');

/** The text of a recorded log of test/fixtures. */
export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** A git repository whose state folder holds `files` (paths under `.tdd/` or `.leap/`, or anywhere). */
export function repoWith(files: Record<string, string> = {}): string {
  const dir = makeGitRepo({ files: { 'README.md': '# r\n' } });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** An environment without the caller's run variables, so a test sees only what it sets. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VERI_|LEAP_|NO_COLOR|FORCE_COLOR|COLUMNS)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** An in-process io whose output is collected. */
export function captureIo(cwd: string, env: NodeJS.ProcessEnv = cleanEnv(), isTTY = false): { io: SubcommandIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { cwd, env, isTTY, stdout: (t) => { out += t; }, stderr: (t) => { err += t; } },
    out: () => out,
    err: () => err,
  };
}

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name));
    if (s.isFile()) t = Math.max(t, s.mtimeMs);
  }
  return t;
}

let built: string | undefined;

/** The umbrella `leap` bin, built again first when it is missing or older than the view's sources. */
export function leapBin(): string {
  if (built !== undefined) return built;
  const bin = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
  const sources = Math.max(newest(join(HERE, '..', 'src')), newest(join(repoRoot, 'packages', 'core', 'src')));
  if (!existsSync(bin) || statSync(bin).mtimeMs < sources) {
    execFileSync('npm', ['run', 'build', '-w', '@leap/cli'], { cwd: repoRoot, stdio: 'ignore' });
  }
  built = bin;
  return bin;
}

/** A real run of `leap demo` (the conductor drives a sample issue end to end with scripted agents) in a fresh folder. */
export function runDemo(): string {
  const dir = join(makeTempDir('leap-view-demo-'), 'repo');
  const r = spawnSync(process.execPath, [leapBin(), 'demo', '--dir', dir], { encoding: 'utf8', env: cleanEnv() });
  if (r.status !== 0) throw new Error(`leap demo exited ${r.status}: ${r.stdout}${r.stderr}`);
  return dir;
}

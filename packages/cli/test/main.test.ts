import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { makeTempDir, repoRoot, runCommand } from '@leap/test-utils';
import { main, mainUsage, COMMANDS } from '../src/index.js';
import { readVersion } from '../src/version.js';

const BIN = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');

let probeFile: string | null = null;
let loadedFile = '';
// A --require'd script that writes the files require() loaded into LEAP_PROBE_OUT when the process exits.
function writeProbe(): string {
  if (probeFile !== null) return probeFile;
  const dir = makeTempDir();
  probeFile = join(dir, 'probe.cjs');
  loadedFile = join(dir, 'loaded.json');
  writeFileSync(
    probeFile,
    "process.on('exit', () => { if (process.env.LEAP_PROBE_OUT) require('node:fs').writeFileSync(process.env.LEAP_PROBE_OUT, JSON.stringify(Object.keys(require.cache))); });\n",
  );
  return probeFile;
}

function readLoaded(args: string[]): string[] {
  execFileSync(process.execPath, ['--require', writeProbe(), BIN, ...args], {
    stdio: 'ignore',
    env: { ...process.env, LEAP_PROBE_OUT: loadedFile },
  });
  return JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      cwd: process.cwd(),
      env: process.env,
      isTTY: false,
    },
  };
}

test('--help lists every subcommand of CONTRACT section 12 that is built', async () => {
  const { out, io: cio } = io();
  assert.is(await main(['--help'], cio), 0);
  for (const name of Object.keys(COMMANDS)) assert.ok(out.join('').includes(`  ${name} `), name);
  assert.is(out.join(''), `${mainUsage()}\n`);
});

test('an unknown subcommand is a usage error naming it', async () => {
  const { io: cio } = io();
  try {
    await main(['frobnicate'], cio);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { exitCode: number }).exitCode, 2);
    assert.match((error as Error).message, /unknown command "frobnicate"/);
  }
});

test('no subcommand is a usage error', async () => {
  const { io: cio } = io();
  try {
    await main([], cio);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { exitCode: number }).exitCode, 2);
  }
});

test('a name inherited from Object.prototype is not a subcommand', async () => {
  const { io: cio } = io();
  try {
    await main(['constructor'], cio);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /unknown command "constructor"/);
  }
});

const MANIFEST = JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')) as {
  version: string;
};

test("--version and -V print the version of @leap/cli's package.json, the one changesets bumps", async () => {
  for (const flag of ['--version', '-V']) {
    const { out, io: cio } = io();
    assert.is(await main([flag], cio), 0);
    assert.is(out.join(''), `${MANIFEST.version}\n`);
  }
  // The bundled bin reads it from its chunk's place in dist/bin/, not from a copy made at build time.
  const bin = await runCommand(process.execPath, [BIN, '--version']);
  assert.is(bin.code, 0, bin.stderr);
  assert.is(bin.stdout, `${MANIFEST.version}\n`);
});

test('readVersion skips a package.json of another name on the way up, and says when there is none', () => {
  const root = makeTempDir();
  mkdirSync(join(root, 'cli', 'dist', 'bin', 'chunks'), { recursive: true });
  writeFileSync(join(root, 'cli', 'package.json'), JSON.stringify({ name: '@leap/cli', version: '9.8.7-rc.1' }));
  writeFileSync(join(root, 'cli', 'dist', 'package.json'), JSON.stringify({ type: 'commonjs' }));
  writeFileSync(
    join(root, 'cli', 'dist', 'bin', 'package.json'),
    JSON.stringify({ name: 'user-project', version: '1.0.0' }),
  );
  assert.is(readVersion(pathToFileURL(join(root, 'cli', 'dist', 'bin', 'chunks', 'leap-X.cjs')).href), '9.8.7-rc.1');
  assert.throws(() => readVersion(join(makeTempDir(), 'nothing.js')), /no package\.json of @leap\/cli above/);
});

test("a subcommand gets the rest of the arguments, byte for byte, and its exit code is leap's", async () => {
  const { out, io: cio } = io();
  assert.is(await main(['slice', '--help'], cio), 0);
  assert.match(out.join(''), /^Usage: leap slice ACTION/);
});

test('the bin: an unknown command is exit 2 with the reason on stderr', async () => {
  const ran = await runCommand(process.execPath, [BIN, 'frobnicate'], {});
  assert.is(ran.code, 2);
  assert.match(ran.stderr, /^leap: unknown command "frobnicate"/);
});

test("the bin is lazy: --help loads no subcommand's code; a subcommand's --help loads no heavy dependency", async () => {
  const heavy = /\/node_modules\/(zod|ajv|simple-git|zx|chokidar|bullmq|ioredis|playwright-core)\//;
  const help = execFileSync(process.execPath, ['--require', writeProbe(), BIN, '--help'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.match(help, /Usage: leap COMMAND/);
  for (const args of [
    ['--help'],
    ['slice', '--help'],
    ['ball', '--help'],
    ['tdd', 'status', '--help'],
    ['status', '--help'],
    ['worker', '--help'],
    ['workers', '--help'],
  ]) {
    const files = readLoaded(args);
    assert.is(
      files.filter((f) => heavy.test(f)).length,
      0,
      `${args.join(' ')} loaded ${files.filter((f) => heavy.test(f)).join(', ')}`,
    );
    if (args.length === 1) {
      // The bin and the chunks it shares with every subcommand (core's error and cli helpers): a few KB, no subcommand's code.
      const bytes = files
        .filter((f) => f.startsWith(join(repoRoot, 'packages', 'cli')))
        .reduce((sum, f) => sum + statSync(f).size, 0);
      assert.ok(bytes < 16_384, `leap --help loaded ${bytes} bytes of the bin`);
    }
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles, makeTempDir, waitFor } from '@leap/test-utils';
import { runVerdict, verifyBinPath } from '../src/verdict-launcher.js';

// A stand-in for leap-verify: records its argv as JSON, then exits with the code in its environment,
// or waits, ending with 5 on SIGTERM (WAIT=1), or kills itself with SIGKILL (SUICIDE=1).
function standIn(dir: string): string {
  const file = join(dir, 'fake-verify.cjs');
  writeFileSync(
    file,
    `
const fs = require('node:fs');
fs.writeFileSync(process.env.ARGV_FILE, JSON.stringify(process.argv.slice(2)));
if (process.env.SUICIDE) process.kill(process.pid, 'SIGKILL');
if (process.env.WAIT) { process.on('SIGTERM', () => process.exit(5)); fs.writeFileSync(process.env.ARGV_FILE + '.ready', ''); setInterval(() => {}, 1000); }
else process.exit(Number(process.env.CODE ?? 0));
`,
  );
  return file;
}

function withEnv<T>(vars: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return run().finally(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });
}

const launch = suite('runVerdict');
launch.after.each(cleanupTempDirs);

launch(
  'passes every argument as one argv element, hostile titles byte for byte, and ends with the code of leap-verify',
  async () => {
    const dir = makeTempDir();
    const argvFile = join(dir, 'argv.json');
    for (const [i, title] of hostileTitles(12, 3).entries()) {
      const code = await withEnv({ ARGV_FILE: argvFile, CODE: String(i % 3) }, () =>
        runVerdict(['--step', title, 'green'], standIn(dir)),
      );
      assert.is(code, i % 3);
      assert.equal(JSON.parse(readFileSync(argvFile, 'utf8')), ['--step', title, 'green']);
    }
  },
);

launch('a leap-verify killed by a signal is a 2', async () => {
  const dir = makeTempDir();
  const code = await withEnv({ ARGV_FILE: join(dir, 'argv.json'), SUICIDE: '1' }, () =>
    runVerdict(['red'], standIn(dir)),
  );
  assert.is(code, 2);
});

launch('a TERM to this process is forwarded to leap-verify, and the handlers go with it', async () => {
  const dir = makeTempDir();
  const argvFile = join(dir, 'argv.json');
  const code = await withEnv({ ARGV_FILE: argvFile, WAIT: '1' }, async () => {
    const running = runVerdict(['green'], standIn(dir));
    await waitFor(() => existsSync(`${argvFile}.ready`), 10_000);
    process.kill(process.pid, 'SIGTERM');
    return running;
  });
  assert.is(code, 5, 'the stand-in saw the TERM and chose its own code');
  assert.is(process.listenerCount('SIGTERM'), 0);
});

launch.run();

// ---

const bin = suite('verifyBinPath');

bin('is the built leap-verify bin named by the package manifest', () => {
  const path = verifyBinPath();
  assert.match(path, /packages\/verify\/dist\/bin\/leap-verify\.cjs$/);
  assert.ok(existsSync(path), `${path} exists (the package is built before its tests)`);
});

bin.run();

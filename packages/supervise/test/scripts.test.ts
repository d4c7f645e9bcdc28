// The drop-in scripts: same arguments, same output, same exit codes as the bins, and --help on each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, runCommand, scriptPath } from '@leap/test-utils';
import { DETACH, STOP, SUPERVISE, WAIT, bin, killStrays, makeScene } from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

const PAIRS: [string, string][] = [
  ['supervise.sh', SUPERVISE],
  ['detach-leaf.sh', DETACH],
  ['wait-leaf.sh', WAIT],
  ['stop-requested.sh', STOP],
];

test('X-help: each script answers --help like its bin, exit 0', async () => {
  for (const [script, binFile] of PAIRS) {
    const viaScript = await runCommand(scriptPath(script), ['--help']);
    const viaBin = await runCommand(process.execPath, [binFile, '--help']);
    assert.is(viaScript.code, 0, script);
    assert.is(viaScript.stdout, viaBin.stdout, script);
    assert.match(viaScript.stdout, 'Usage: leap-');
  }
});

test("X-codes: the scripts give the bins' exit codes and output (3, 3, 125, 127, the leaf code)", async () => {
  const scene = makeScene();
  const run = (script: string, args: string[]) =>
    runCommand(scriptPath(script), args, { cwd: scene.repo, env: scene.env });
  const stop = await run('stop-requested.sh', []);
  assert.equal([stop.code, stop.stdout], [3, '']);
  assert.is((await bin(STOP, scene, ['request', 'at-ledger'])).code, 0);
  const pending = await run('stop-requested.sh', []);
  assert.equal([pending.code, pending.stdout], [0, 'at-ledger\n']);
  assert.is((await run('supervise.sh', [])).code, 125);
  const exited = await run('supervise.sh', ['x', 'sh', '-c', 'exit 9']);
  assert.equal([exited.code, exited.stderr], [9, 'supervise[x]: exited\n']);
  const waited = await run('wait-leaf.sh', ['x']);
  assert.equal([waited.code, waited.stderr], [9, 'wait-leaf[x]: exited\n']);
  assert.is((await run('wait-leaf.sh', ['never-started', '0'])).code, 3);
  assert.is((await run('detach-leaf.sh', ['/no/such'])).code, 127);
});

test('X-symlink: the scripts work through a symlinked scripts folder (S may be a link)', async () => {
  const scene = makeScene();
  const link = join(scene.repo, 'S');
  symlinkSync(join(scriptPath('supervise.sh'), '..'), link);
  const r = await runCommand(join(link, 'supervise.sh'), ['linked', 'true'], { cwd: scene.repo, env: scene.env });
  assert.is(r.code, 0);
  assert.is(r.stderr, 'supervise[linked]: exited\n');
});

test.run();

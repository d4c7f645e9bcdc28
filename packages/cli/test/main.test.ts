import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main, mainUsage, COMMANDS } from '../src/index.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), cwd: process.cwd(), env: process.env, isTTY: false } };
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

test.run();

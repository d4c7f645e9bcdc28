// runCommand's bound: a command that hangs fails its test with a clear message, never the whole suite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandLimitMs, runCommand } from '../src/index.js';

test('a command past its limit is killed, and its result says so', async () => {
  // Killed whether or not it had started yet (a loaded machine): nothing here depends on its speed.
  const r = await runCommand(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { limitMs: 300 });
  assert.is(r.signal, 'SIGKILL');
  assert.is(r.code, null);
  assert.match(r.stderr, /did not end within 0\.3 s and was killed \(LEAP_TEST_COMMAND_LIMIT_S\)/);
});

test('a command within its limit keeps its own exit, output and input byte for byte', async () => {
  const input = 'it\'s $(x) `y` "z"\nnon-ASCII: é ✓\n';
  const r = await runCommand(
    process.execPath,
    ['-e', 'process.stdin.pipe(process.stdout); process.stdin.on("end", () => { process.exitCode = 3; })'],
    { input },
  );
  assert.equal([r.code, r.signal, r.stdout, r.stderr], [3, null, input, '']);
});

test('the default limit comes from LEAP_TEST_COMMAND_LIMIT_S; a bad value is an error that names it', () => {
  assert.is(commandLimitMs({}), 600_000);
  assert.is(commandLimitMs({ LEAP_TEST_COMMAND_LIMIT_S: '2.5' }), 2500);
  assert.throws(
    () => commandLimitMs({ LEAP_TEST_COMMAND_LIMIT_S: '10m' }),
    /LEAP_TEST_COMMAND_LIMIT_S must be a positive number of seconds, got "10m"/,
  );
});

test.run();

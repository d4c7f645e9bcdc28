// detachRun (what `leap tdd run --detach` and `leap slice run --detach` share): real leap-detach and
// leap-supervise processes around a stand-in `leap` (test/fixtures/detach-host.mjs).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles, isAlive, makeTempDir, runCommand, waitFor } from '@leap/test-utils';

const HOST = join(import.meta.dirname, 'fixtures', 'detach-host.mjs');
test.after.each(cleanupTempDirs);

async function host(stateDir: string, lock: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = await runCommand(process.execPath, [HOST, stateDir, lock, ...args], { env });
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

test('detachRun: started once the run holds its lock, in a session of its own; a second start is refused while it runs; arguments byte for byte', async () => {
  const tmp = makeTempDir();
  const state = join(tmp, 'state');
  const dir = join(state, 'detached', 'run-1');
  const lock = join(tmp, 'lock');
  const gate = join(tmp, 'gate');
  const title = hostileTitles(1, 7)[0] as string;
  const started = await host(state, lock, ['run', lock, gate, title]);
  assert.is(started.started, true, JSON.stringify(started));
  assert.is(started.wait, `VERI_STATE_DIR=${dir} leap-wait run`);
  const pid = started.pid as number;
  assert.is(Number(readFileSync(lock, 'utf8')), pid);
  assert.ok(isAlive(pid), 'the run lives on after its host ended');
  const session = (p: number) => Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[3]);
  assert.is.not(
    session(pid),
    session(process.pid),
    'a session of its own: a kill of the caller’s group does not reach it',
  );
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  assert.is(cmdline.at(-2), title, 'the title reached the run as one argument, byte for byte');
  const second = await host(state, join(tmp, 'lock2'), ['run', join(tmp, 'lock2'), gate]);
  assert.is(second.code, 2);
  assert.match(String(second.error), 'a detached run is still running here');
  writeFileSync(gate, '');
  await waitFor(() => existsSync(join(dir, 'run.exit')), 20_000, 'run.exit');
  assert.is(readFileSync(join(dir, 'run.exit'), 'utf8').split('\n')[0], '0');
  await supervisorGone(started.supervisor);
});

/** Wait until the detached supervisor has ended: it still writes in its folder after run.exit. */
async function supervisorGone(pid: unknown): Promise<void> {
  assert.ok(Number.isInteger(pid) && (pid as number) > 1, `a supervisor pid, got ${JSON.stringify(pid)}`);
  await waitFor(() => !isAlive(pid as number), 20_000, `supervisor ${pid} to end`);
}

test('detachRun: a run that ends before taking its lock is reported with its own words and code; one that never takes it is left running, said', async () => {
  const tmp = makeTempDir();
  const failed = await host(join(tmp, 'a'), join(tmp, 'lock'), ['fail', 'no such issue']);
  assert.is(failed.started, false);
  assert.is(failed.code, 2);
  assert.is(failed.stderr, 'bad input: no such issue\n');
  assert.not.ok(existsSync(join(tmp, 'a')), 'bad input leaves nothing: the state folder this start made is gone');
  const lock = join(tmp, 'never');
  const gate = join(tmp, 'gate');
  // The run writes its pid elsewhere: the host never sees its lock taken.
  const slow = await host(join(tmp, 'b'), lock, ['run', join(tmp, 'elsewhere'), gate], {
    ...process.env,
    START_MS: '300',
  });
  assert.is(slow.code, 1);
  assert.match(String(slow.error), 'has not taken its lock within 0.3 s; it is left running');
  writeFileSync(gate, '');
  await waitFor(() => existsSync(join(tmp, 'b', 'detached', 'run-1', 'run.exit')), 20_000, 'run.exit');
  await supervisorGone(Number(/supervisor pid (\d+)/.exec(String(slow.error))?.[1]));
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { retryWorktreeRace, serial } from '../src/index.js';

const queue = suite('serial');

queue('each piece of work starts when the one before has ended, a failed one too', async () => {
  const once = serial();
  const log: string[] = [];
  const step = (name: string, ms: number, fail = false) =>
    once(async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
  const results = await Promise.allSettled([step('a', 30), step('b', 5, true), step('c', 1)]);
  assert.equal(log, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  assert.equal(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    ['a', 'b failed', 'c'],
  );
});

const retry = suite('retryWorktreeRace');

const RACE =
  'git worktree add -q -B leap/s/b /r/.leap/.worktrees/s/b abc (in /r) failed: fatal: failed to read .git/worktrees/a/commondir: Success';

retry('a command that lost the race to another git is run again, and its answer returned', async () => {
  let calls = 0;
  const out = await retryWorktreeRace(async () => {
    calls++;
    if (calls < 3) throw new Error(RACE);
    return 'made';
  });
  assert.equal([out, calls], ['made', 3]);
});

retry('any other failure is thrown at once; a race that goes on is thrown after the last attempt', async () => {
  let calls = 0;
  const other = await retryWorktreeRace(async () => {
    calls++;
    throw new Error("fatal: '/r/x' already exists");
  }).catch((e: Error) => e.message);
  assert.equal([other, calls], ["fatal: '/r/x' already exists", 1]);
  calls = 0;
  const lasting = await retryWorktreeRace(async () => {
    calls++;
    throw new Error(RACE);
  }, 3).catch((e: Error) => e.message);
  assert.equal([lasting, calls], [RACE, 3]);
});

queue.run();
retry.run();

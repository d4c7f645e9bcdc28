import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import {
  ball,
  contentProof,
  eventsOf,
  gateFile,
  openGate,
  readLeap,
  runQueued,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  writeAgents,
  writeSlice,
} from './helpers.js';

const BASE = { 'README.md': '# repo\n' };

const test = suite('bullmq runner: Redis restarted');
test.after.each(cleanupTempDirs);

test('Redis killed and started again in the middle of a slice (append-only file on): nothing lost, nothing built twice', async () => {
  const redis = await startRedis({ aof: true });
  const { remote, repo, dir } = setupRemote(BASE);
  const ids = ['p', 'q', 'r'];
  const file = writeSlice(dir, {
    id: 'restart',
    balls: ids.map((id, i) =>
      ball(id, [`src/${id}.txt`], BASE, {
        deps: i === 2 ? ['p'] : [],
        proof: { argv: contentProof({ [`src/${id}.txt`]: `${id}\n` }) },
      }),
    ),
  });
  // p's and q's builders wait at a gate opened once Redis is back: both rounds are in flight while it is down,
  // however fast or slow the machine (r, after p, is queued only then).
  const gate = gateFile(dir, 'restarted');
  const agents = writeAgents(
    dir,
    Object.fromEntries(
      ids.map((id) => [
        id,
        { '*': { ...(id === 'r' ? {} : { wait_for: gate }), edits: [{ path: `src/${id}.txt`, content: `${id}\n` }] } },
      ]),
    ),
  );
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  const m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents]);
  try {
    await Promise.all([m1.waitFor(/waiting for rounds/), m2.waitFor(/waiting for rounds/)]);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 3 });
    await Promise.all([m1.waitFor(/restart\/. round 1: taken/), m2.waitFor(/restart\/. round 1: taken/)]);
    await redis.stop('SIGKILL');
    assert.ok(existsSync(join(redis.dir, 'appendonlydir')), 'the append-only file is on disk');
    await new Promise((r) => setTimeout(r, 700));
    await redis.restart();
    openGate(gate);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}\n${m2.err()}`);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt, b.rounds]),
      [
        ['p', 1, 1],
        ['q', 1, 1],
        ['r', 1, 1],
      ],
    );
    for (const id of ids) assert.is(readLeap(repo, 'restart', id, 'round-2.json'), null, id);
    // Each round built once, each ball merged once.
    const taken = `${m1.err()}\n${m2.err()}`.split('\n').filter((l) => /round 1: receipt 1/.test(l));
    assert.is(taken.length, 3, taken.join('\n'));
    assert.is(eventsOf(repo, 'merge').length, 3);
    assert.is(git(repo, 'log', '--first-parent', '--format=%s', 'leap/restart/spine').trim().split('\n').length, 4);
  } finally {
    await stopAll(redis, m1, m2);
  }
});

test.run();

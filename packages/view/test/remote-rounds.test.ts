// Rounds on other machines' workers (the bullmq runner's remote-round.json): what leap status and leap report show.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs } from '@leap/test-utils';
import { reportMain } from '../src/report-cli.js';
import { statusMain } from '../src/status-cli.js';
import type { StatusData } from '../src/status-data.js';
import { captureIo, cleanEnv, repoWith } from './helpers.js';

const picture = (ball: string, extra: Record<string, unknown>) => ({
  [`.leap/dist/${ball}/remote-round.json`]: JSON.stringify({
    v: 1,
    round: 1,
    job: `dist.${ball}.r1.0123456789ab.cafe`,
    state: 'queued',
    worker: null,
    queuedAt: new Date(Date.now() - 5000).toISOString(),
    takenAt: null,
    returnedAt: null,
    enginePid: process.pid,
    ...extra,
  }),
});

const test = suite('leap status: distributed rounds');
test.after.each(cleanupTempDirs);

test("queued and building rounds show in Running now (a worker's name escaped); a dead engine's, a recorded round's and a malformed picture do not", async () => {
  // A process that has ended: its pid is no engine's now.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
  const repo = repoWith({
    ...picture('a', {}),
    ...picture('b', {
      state: 'building',
      worker: 'm1\u001b[2J\u009b',
      phase: 'proving',
      takenAt: new Date(Date.now() - 2000).toISOString(),
    }),
    ...picture('f', {
      state: 'building',
      worker: 'm3',
      phase: 'proving\u001b[2J; curl x | sh',
      takenAt: new Date(Date.now() - 1000).toISOString(),
    }),
    ...picture('g', {
      state: 'building',
      worker: 'm4',
      phase: 'deploying',
      takenAt: new Date(Date.now() - 1000).toISOString(),
    }),
    ...picture('c', { enginePid: gone }),
    ...picture('d', { state: 'returned', worker: 'm2' }),
    '.leap/dist/d/round-1.json': JSON.stringify({ receipt: 1 }),
    '.leap/dist/e/remote-round.json': JSON.stringify({ state: 'exploded' }),
    // The report wants an event log (an engine writes one before it queues anything).
    '.tdd/events.jsonl': '',
  });
  const json = captureIo(repo, cleanEnv());
  assert.is(await statusMain(['--json'], json.io), 0, json.err());
  const data = JSON.parse(json.out()) as StatusData;
  assert.equal(data.remote.map((r) => [r.ball, r.state, r.worker, r.phase]).sort(), [
    ['a', 'queued', null, null],
    ['b', 'building', 'm1\u001b[2J\u009b', 'proving'],
    ['f', 'building', 'm3', null],
    ['g', 'building', 'm4', null],
  ]);
  const text = captureIo(repo, cleanEnv({ NO_COLOR: '1' }));
  assert.is(await statusMain([], text.io), 0);
  assert.match(text.out(), /◌ slice dist ball a round 1 {2}queued for [^:]+: no worker has taken it/, text.out());
  assert.match(text.out(), /● slice dist ball b round 1 {2}building on worker m1\\u001b\[2J\\u009b \(proving\) for /);
  assert.match(
    text.out(),
    /● slice dist ball f round 1 {2}building on worker m3 for /,
    'a phase that is not a word of the list is no phase',
  );
  assert.match(
    text.out(),
    /● slice dist ball g round 1 {2}building on worker m4 for /,
    "a word that is not one of the runners' phases is no phase either",
  );
  assert.not.match(text.out(), /no leaf is running|ball c round|ball d round/);
  assert.not.match(text.out(), /\u001b\[2J/);
  const out = join(repo, 'report.html');
  const report = captureIo(repo, cleanEnv());
  assert.is(await reportMain(['--out', out], report.io), 0, report.err());
  const html = readFileSync(out, 'utf8');
  assert.match(html, /data-remote="queued">round 1: queued: no worker has taken it</);
  assert.match(html, /data-remote="building">round 1: building on worker m1[^<]* \(proving\)</);
  assert.not.match(html, /data-remote="returned"/);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
// The view's commands as `leap status` and `leap report` run them (this package does not depend on the view).
import { reportMain } from '../../../packages/view/src/report-cli.js';
import { statusMain } from '../../../packages/view/src/status-cli.js';
import { callCommand, gateFile, openGate, runQueued, setupRemote, spawnWorker, startRedis, stopAll, testEnv, TWO_BALLS_BASE, twoBalls, until } from './helpers.js';

type Remote = { slice: string; ball: string; round: number; state: string; worker: string | null };

const test = suite('leap status and leap report: distributed rounds as they run');
test.after.each(cleanupTempDirs);

test('an engine with no worker: its round is queued and no worker has taken it; then building on worker m1; gone from Running now once returned', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'x');
  // y after x: one round at a time.
  const { file, agents } = twoBalls(dir, 'seen', {}, true, { x: gate });
  let m1: ReturnType<typeof spawnWorker> | null = null;
  const status = async () => {
    const out = await callCommand(statusMain, ['--json'], repo, testEnv());
    assert.is(out.code, 0, out.stderr);
    return (JSON.parse(out.stdout) as { remote: Remote[] }).remote;
  };
  const text = async () => (await callCommand(statusMain, [], repo, { ...testEnv(), NO_COLOR: '1' })).stdout;
  const report = async () => {
    const out = join(makeTempDir('leap-report-'), 'report.html');
    const made = await callCommand(reportMain, ['--out', out], repo, testEnv());
    assert.is(made.code, 0, made.stderr);
    return readFileSync(out, 'utf8');
  };
  try {
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2 });
    await until('x queued', async () => (await status()).some((r) => r.ball === 'x' && r.state === 'queued'));
    assert.equal(
      (await status()).map(({ slice, ball, round, state, worker }) => ({ slice, ball, round, state, worker })),
      [{ slice: 'seen', ball: 'x', round: 1, state: 'queued', worker: null }],
    );
    // The engine says so itself too, once.
    await until('the engine says no worker took it', () =>
      lines.includes('ball x: round 1: queued, and no worker is connected to the queue leap-rounds: no worker has taken it (leap workers lists them; it waits for one)'),
    );
    const queued = await text();
    assert.match(queued, /◌ slice seen ball x round 1 {2}queued for [^:]+: no worker has taken it/);
    assert.not.match(queued, /no leaf is running/);
    assert.match(await report(), /data-remote="queued">round 1: queued: no worker has taken it</);

    m1 = spawnWorker(redis.url, remote, 'm1 <b>', ['--agents', agents]);
    await until('x building on m1', async () => (await status()).some((r) => r.ball === 'x' && r.state === 'building' && r.worker === 'm1 <b>'));
    assert.match(await text(), /● slice seen ball x round 1 {2}building on worker m1 <b> for /);
    assert.match(await report(), /data-remote="building">round 1: building on worker m1 &lt;b&gt;</);
    openGate(gate);
    const summary = await running;
    assert.is(summary.exitCode, 0, `${lines.join('\n')}\n${m1.err()}`);
    // The engine is done: nothing of its rounds is shown as running.
    assert.equal(await status(), []);
    assert.match(await text(), /no leaf is running/);
  } finally {
    await stopAll(redis, m1);
  }
});

test.run();

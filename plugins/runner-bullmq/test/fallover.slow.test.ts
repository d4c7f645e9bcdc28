import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE } from '../src/index.js';
import { seal, unseal, type Sealed } from '../src/sign.js';
import type { RoundJob } from '../src/protocol.js';
import { claudeEntry, launchesOf } from '../../../packages/slice/test/engine-helpers.js';
import {
  SECRET,
  ball,
  contentProof,
  eventsOf,
  readLeap,
  runQueued,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  writeAgents,
  writeSlice,
} from './helpers.js';

// A remote round whose builder's vendor ran dry falls over as a local one does (issue 21 §3): the worker's signed
// result carries `dry`, and the engine asks its next builder for the same round, from the same commit, in a job
// of its own. A worker stands in here (it holds the secret, and answers each job as the test says), so what
// the engine believes of a dry claim is what is tested: a claim that is signed and empty-handed, yes; one that is
// unsigned, wrongly signed, or comes with work, no.

const test = suite('bullmq runner: the fall-over of a remote round');
test.after.each(cleanupTempDirs);

const BASE = { 'src/dry.txt': 'd\n', 'src/unsigned.txt': 'u\n', 'src/forged.txt': 'f\n', 'src/lying.txt': 'l\n' };

test('a signed dry result: the round goes to the next builder in a job of its own, not counted; an unsigned, a wrongly signed or a working dry claim is not believed', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(BASE);
  const ids = ['dry', 'unsigned', 'forged', 'lying'];
  const file = writeSlice(dir, {
    id: 'remote',
    balls: ids.map((id) =>
      ball(id, [`src/${id}.txt`], BASE, {
        proof: { argv: contentProof({ [`src/${id}.txt`]: `${id.toUpperCase()}\n` }) },
      }),
    ),
  });
  const agents = writeAgents(dir, {});
  const secret = Buffer.from(SECRET);
  const clone = makeTempDir('leap-dry-worker-');
  git(clone, 'clone', '-q', remote, '.');
  git(clone, 'config', 'user.name', 'Stand-in');
  git(clone, 'config', 'user.email', 'stand-in@test.invalid');
  const seen: string[] = [];
  // Every ball's first job is answered once all four are queued: each was asked of the first builder, b.
  let arrived = 0;
  let allHere: () => void = () => {};
  const gathered = new Promise<void>((r) => {
    allHere = r;
  });
  let busy = Promise.resolve();
  const answer = async (job: Job<Sealed, Sealed>): Promise<Sealed | Record<string, unknown>> => {
    const { request } = unseal(secret, 'job', String(job.id), job.data) as RoundJob;
    const id = request.ball;
    seen.push(
      `${id} ${request.round} ${request.agent} ${String(job.id).endsWith(`.${request.agent}`) ? 'own-id' : 'shared-id'}`,
    );
    const leaf = `build-${id}-${request.round}`;
    const base = {
      v: 1,
      worker: 'stand-in',
      tip: request.commit,
      receipt: 0,
      reason: 'the builder ran dry',
      candidate: null,
      commit: null,
      proof: null,
      changed: [],
      champion: { code: 1, metric: null, ms: 1 },
      jury: null,
      reproof: null,
      builder: { agent: request.agent, family: request.agent === 'b' ? 'fb' : 'fb2', leaf, status: 'exited' },
      leaves: [{ leaf, usage: null }],
      dry: { kind: 'rate-limit', message: 'API Error: 429 rate_limit_error' },
      events: [],
    };
    if (id === 'dry' && request.agent === 'b') return seal(secret, 'result', String(job.id), base);
    // The next builder's rounds: no pass each (its proof failed, nothing kept), so four real rounds follow.
    if (id === 'dry')
      return seal(secret, 'result', String(job.id), {
        ...base,
        receipt: null,
        reason: 'the proof exited 1',
        dry: undefined,
      });
    if (id === 'unsigned') return { v: 1, body: JSON.stringify(base) };
    if (id === 'forged') return seal(Buffer.from("a secret that is not the queue's"), 'result', String(job.id), base);
    // Lying: a dry claim, yet a commit pushed and a tip that moved.
    git(clone, 'fetch', '-q', 'origin', `+refs/heads/${request.branch}:refs/remotes/origin/${request.branch}`);
    git(clone, 'checkout', '-q', '--detach', request.commit);
    writeFileSync(join(clone, 'src', 'lying.txt'), 'LYING\n');
    git(clone, 'commit', '-q', '-am', 'a dry builder that built');
    const tip = git(clone, 'rev-parse', 'HEAD').trim();
    git(clone, 'push', '-q', '--force', 'origin', `${tip}:refs/heads/${request.branch}`);
    return seal(secret, 'result', String(job.id), { ...base, tip, commit: tip });
  };
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const standIn = new Worker<Sealed, Sealed>(
    QUEUE,
    async (job) => {
      if (++arrived === ids.length) allHere();
      await gathered;
      const done = busy.then(() => answer(job));
      busy = done.then(
        () => undefined,
        () => undefined,
      );
      return (await done) as Sealed;
    },
    { connection, prefix: PREFIX, concurrency: ids.length },
  );
  standIn.on('error', () => {});
  try {
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: ids.length, builder: 'b,b2' });
    const summary = await running;
    const by = Object.fromEntries(summary.balls.map((b) => [b.id, b]));
    // Ball dry: b's job, then b2's for the same round (a job id of its own), then b2's three more rounds.
    assert.equal(
      seen.filter((s) => s.startsWith('dry ')),
      ['dry 1 b own-id', 'dry 1 b2 own-id', 'dry 2 b2 own-id', 'dry 3 b2 own-id', 'dry 4 b2 own-id'],
    );
    assert.is(by.dry?.receipt, 0);
    assert.is(by.dry?.rounds, 4);
    assert.match(by.dry?.reason ?? '', /four rounds without a pass/);
    const round1 = readLeap<{
      builder: { agent: string };
      fallovers?: { agent: string; cause: string }[];
      worker?: string;
    }>(repo, 'remote', 'dry', 'round-1.json');
    assert.is(round1?.builder.agent, 'b2');
    assert.equal(round1?.fallovers, [
      { agent: 'b', family: 'fb', cause: 'rate-limit', message: 'API Error: 429 rate_limit_error' },
    ]);
    assert.is(round1?.worker, 'stand-in');
    assert.ok(
      lines.some((l) =>
        /ball dry: build-dry-1: the builder b \(fb\) ran dry \(rate-limit: API Error: 429 rate_limit_error\); built again by b2 \(fb2\), from the same commit, not counted as a round \(worker stand-in\)/.test(
          l,
        ),
      ),
      lines.join('\n'),
    );
    // One fallover event: the signed one. The others were never believed.
    assert.equal(
      eventsOf(repo, 'fallover').map((e) => [e.ball, e.agent, e.next]),
      [['dry', 'b', 'b2']],
    );
    for (const id of ['unsigned', 'forged', 'lying'])
      assert.equal(
        seen.filter((s) => s.startsWith(`${id} `)),
        [`${id} 1 b own-id`],
        `${id}: asked of b once, never of b2`,
      );
    assert.is(by.unsigned?.receipt, 0);
    assert.match(by.unsigned?.reason ?? '', /is refused: the result is unsigned/);
    assert.is(by.forged?.receipt, 0);
    assert.match(by.forged?.reason ?? '', /is refused: the result is wrongly signed/);
    assert.is(by.lying?.receipt, -1);
    assert.match(
      by.lying?.reason ?? '',
      /refused by the engine's check of worker stand-in's result: it says the builder ran dry \(rate-limit\) yet returns a commit [0-9a-f]{12}/,
    );
    assert.is(
      git(repo, 'rev-parse', 'refs/heads/leap/remote/lying'),
      git(repo, 'rev-parse', 'HEAD'),
      "the lying ball's branch is back at its start",
    );
    assert.is(readLeap(repo, 'remote', 'unsigned', 'round-1.json'), null);
  } finally {
    await standIn.close();
    connection.disconnect();
    await redis.stop();
  }
});

// The worker's claude plugin reads the dry leaf (its ranDry); the engine asks its next builder.
test("a real worker's builder (the claude plugin over a stand-in CLI whose vendor answers 429) falls over to the engine's next builder, as a local round does", async () => {
  const redis = await startRedis();
  const base = { 'src/x.txt': 'old x\n' };
  const { remote, repo, dir } = setupRemote(base);
  const file = writeSlice(dir, {
    id: 'real',
    balls: [ball('x', ['src/x.txt'], base, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  // One agents file for the engine and the worker: cl (the claude plugin over the stand-in), then b.
  const agents = writeAgents(dir, { x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }] } } });
  const parsed = JSON.parse(readFileSync(agents, 'utf8')) as { agents: Record<string, unknown> };
  parsed.agents.cl = claudeEntry(dir, 'cl', {
    x: { '*': { edits: [{ path: 'src/x.txt', content: 'half-done\n' }], dry: 429 } },
  });
  writeFileSync(agents, JSON.stringify(parsed));
  const worker = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = worker.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { builder: 'cl,b' });
    await ready;
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${worker.err()}`);
    assert.equal(launchesOf(dir, 'cl'), ['x 1']);
    const round = readLeap<{
      builder: { agent: string };
      fallovers?: { agent: string; cause: string }[];
      worker?: string;
    }>(repo, 'real', 'x', 'round-1.json');
    assert.is(round?.builder.agent, 'b');
    assert.equal(
      round?.fallovers?.map((f) => [f.agent, f.cause]),
      [['cl', 'rate-limit']],
    );
    assert.is(round?.worker, 'm1');
    assert.equal(
      eventsOf(repo, 'fallover').map((e) => [e.leaf, e.agent, e.next]),
      [['build-x-1', 'cl', 'b']],
    );
    assert.is(git(repo, 'show', 'leap/real/spine:src/x.txt'), 'X\n');
    assert.not.ok(
      git(repo, 'log', '--all', '-p', '--format=%H').includes('half-done'),
      'no commit holds what cl wrote',
    );
    assert.match(
      worker.err(),
      /the builder cl ran dry \(rate-limit\): nothing built, the engine's next builder takes the round/,
    );
  } finally {
    await stopAll(redis, worker);
  }
});

test("a juror whose vendor ran dry on one ball's jury (on a worker) is passed over by the next ball's jury, queued with the skip, and by the aggregate's", async () => {
  const redis = await startRedis();
  const base = { 'src/x.txt': 'old x\n', 'src/y.txt': 'old y\n' };
  const { remote, repo, dir } = setupRemote(base);
  const file = writeSlice(dir, {
    id: 'skip',
    balls: [
      ball('x', ['src/x.txt'], base, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } }),
      ball('y', ['src/y.txt'], base, { proof: { argv: contentProof({ 'src/y.txt': 'Y\n' }) }, deps: ['x'] }),
    ],
  });
  const agents = writeAgents(dir, {
    x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }] } },
    y: { '*': { edits: [{ path: 'src/y.txt', content: 'Y\n' }] } },
  });
  const parsed = JSON.parse(readFileSync(agents, 'utf8')) as { agents: Record<string, unknown> };
  parsed.agents.clr = claudeEntry(dir, 'clr', { '*': { '*': { dry: 429 } } });
  writeFileSync(agents, JSON.stringify(parsed));
  const worker = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  try {
    // The engine starts while the worker does (it takes the round once it is up).
    const ready = worker.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, {
      reviewers: ['r1', 'clr'],
      alternates: ['r2'],
    });
    await ready;
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${worker.err()}`);
    type Seats = { jury: { seats: { reviewer: string; dry?: string }[] } };
    assert.equal(
      readLeap<Seats>(repo, 'skip', 'x', 'round-1.json')?.jury.seats.map((s) => [s.reviewer, s.dry ?? null]),
      [
        ['r1', null],
        ['clr', 'rate-limit'],
        ['r2', null],
      ],
    );
    // y's jury ran on the worker from a job that named clr to skip; the aggregate ran here: clr ran once, on x's.
    assert.equal(
      readLeap<Seats>(repo, 'skip', 'y', 'round-1.json')
        ?.jury.seats.map((s) => s.reviewer)
        .sort(),
      ['r1', 'r2'],
    );
    assert.equal(launchesOf(dir, 'clr'), ['- -']);
    assert.ok(
      lines.some((l) =>
        l.includes("reviewer clr's vendor ran dry (rate-limit): passed over by every later jury of this run"),
      ),
      lines.join('\n'),
    );
  } finally {
    await stopAll(redis, worker);
  }
});

test.run();

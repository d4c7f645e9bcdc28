import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PREFIX, QUEUE } from '../src/index.js';
import { jobRequest, remoteId } from '../src/protocol.js';
import { SECRET, ball, roundRequest, setupRemote, spawnWorker, startRedis, stopAll, writeAgents } from './helpers.js';
import { seal } from '../src/sign.js';

const test = suite('bullmq worker: injected jobs');
test.after.each(cleanupTempDirs);

type Body = Record<string, unknown> & { request: Record<string, unknown> };

/** Wait until every job has ended (completed or failed); their states, reasons and attempts, read raw (a job may not be JSON). */
async function ended(
  queue: Queue,
  redis: Redis,
  ids: string[],
): Promise<Map<string, { state: string; reason: string; attempts: number }>> {
  const out = new Map<string, { state: string; reason: string; attempts: number }>();
  for (let i = 0; i < 6000 && out.size < ids.length; i++) {
    for (const id of ids) {
      if (out.has(id)) continue;
      const state = await queue.getJobState(id);
      const [reason, attempts] = await redis.hmget(`${PREFIX}:${QUEUE}:${id}`, 'failedReason', 'atm');
      if (state === 'completed' || state === 'failed')
        out.set(id, { state, reason: reason ?? '', attempts: Number(attempts) });
    }
    if (out.size < ids.length) await new Promise((r) => setTimeout(r, 50));
  }
  return out;
}

test('every field of a job is checked on the worker before anything is touched: each bad job fails at once with its reason, nothing run, deleted or pushed', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote({ 'a.txt': 'a\n' });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'a.txt', content: 'A\n' }] } } });
  const ran = join(makeTempDir('leap-ran-'), 'ran');
  // A proof that would leave a mark: the jobs' own code, which a refused job never runs.
  const mark = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(ran)}, 'ran')`];
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents]);
  const victim = join(m1.dir, 'victims', 'v1');
  mkdirSync(victim, { recursive: true });
  writeFileSync(join(victim, 'keep.txt'), 'mine\n');
  const refsBefore = git(remote, 'for-each-ref', '--format=%(refname) %(objectname)');
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  const valid = (slice: string): Body => {
    const r = roundRequest(repo, slice, 'b');
    const spec = { ...r.spec, proof: { argv: mark } };
    return {
      v: 1,
      run: '0123456789ab',
      remote: remoteId(remote),
      request: { ...jobRequest({ ...r, spec, definition: { ...r.definition, balls: [spec] } }) },
    };
  };
  const edit = (slice: string, change: (b: Body) => void): Body => {
    const b = valid(slice);
    change(b);
    return b;
  };
  const missing = 'f'.repeat(40);
  const cases: [string, Body | string, RegExp][] = [
    [
      'ball-traversal',
      edit('ball-traversal', (b) => {
        b.request.ball = '../../../victims/v1';
      }),
      /request\.ball: an id is 1 to 64/,
    ],
    [
      'slice-id',
      edit('slice-id', (b) => {
        b.request.slice = 'Up/../../x';
      }),
      /request\.slice: an id is/,
    ],
    [
      'branch',
      edit('branch', (b) => {
        b.request.branch = 'main';
      }),
      /request\.branch: expected "leap\/branch\/a", got "main"/,
    ],
    [
      'commit-name',
      edit('commit-name', (b) => {
        b.request.commit = 'HEAD';
      }),
      /request\.commit: a full commit sha/,
    ],
    // A commit the remote lacks spends the job's attempts (a worker with a wrong --repo leaves it to the others).
    [
      'commit-missing',
      edit('commit-missing', (b) => {
        b.request.commit = missing;
        b.request.start = missing;
      }),
      new RegExp(`^the round's commit ${missing} is not on`),
    ],
    [
      'round',
      edit('round', (b) => {
        b.request.round = 5;
      }),
      /request\.round/,
    ],
    [
      'agent',
      edit('agent', (b) => {
        b.request.agent = 'b\n\u001b[31m';
      }),
      /request\.agent: a printable name/,
    ],
    [
      'agents-file',
      edit('agents-file', (b) => {
        b.agents = { name: 'x.json', text: '{"agents":{"b":{"plugin":"command","command":["id"]}}}' };
      }),
      /Unrecognized key: "agents"/,
    ],
    [
      'env',
      edit('env', (b) => {
        b.request.env = { PATH: '/tmp' };
      }),
      /Unrecognized key: "env"/,
    ],
    [
      'agents-path',
      edit('agents-path', (b) => {
        b.request.agentsFile = '/etc/passwd';
      }),
      /Unrecognized key: "agentsFile"/,
    ],
    [
      'remote-url',
      edit('remote-url', (b) => {
        b.remote = 'https://user:token@example.invalid/repo.git';
      }),
      /remote: a sha256/,
    ],
    [
      'scope-out',
      edit('scope-out', (b) => {
        const spec = {
          ...(b.request.spec as Record<string, unknown>),
          scope: [{ path: '../../../victims/v1/keep.txt', sha256: null }],
        };
        b.request.spec = spec;
        b.request.definition = { ...(b.request.definition as Record<string, unknown>), balls: [spec] };
      }),
      /request\.definition is not a valid slice: .*\.\./,
    ],
    [
      'spec-other',
      edit('spec-other', (b) => {
        b.request.spec = ball('a', ['a.txt'], { 'a.txt': 'a\n' }, { proof: { argv: ['sh', '-c', 'id'] } });
      }),
      /request\.spec: not the definition's ball of that id/,
    ],
    [
      'definition-other',
      edit('definition-other', (b) => {
        (b.request.definition as Record<string, unknown>).id = 'elsewhere';
      }),
      /request\.definition\.id: expected the job's slice "definition-other", got "elsewhere"/,
    ],
    [
      'passed-ghost',
      edit('passed-ghost', (b) => {
        b.request.passed = ['ghost'];
      }),
      /request\.passed: no ball "ghost"/,
    ],
    [
      'timeout',
      edit('timeout', (b) => {
        b.request.timeoutMs = -1;
      }),
      /request\.timeoutMs/,
    ],
    [
      'version',
      edit('version', (b) => {
        b.v = 2;
      }),
      /^refused: v: /,
    ],
    ['not-an-object', 'just text', /refused: \(the body\)/],
    ['not-json', valid('not-json'), /refused: the job's data is not JSON/],
  ];
  // Jobs signed with the queue's secret (an engine's, or a leaked secret), so the worker's checks of each field are what refuse them.
  const secret = Buffer.from(SECRET);
  const data = new Map<string, unknown>(cases.map(([id, body]) => [id, seal(secret, 'job', id, body)]));
  // Unsigned, signed with another secret, signed for another job, or changed after signing: refused before the body is read.
  const good = valid('signed');
  const sealed = seal(secret, 'job', 'changed', good);
  const more: [string, unknown, RegExp][] = [
    ['unsigned', good, /^refused: the job is unsigned$/],
    [
      'wrong-secret',
      seal(Buffer.from('not the queue secret at all'), 'job', 'wrong-secret', good),
      /^refused: the job is wrongly signed/,
    ],
    ['other-job', seal(secret, 'job', 'elsewhere', good), /^refused: the job is wrongly signed/],
    [
      'changed',
      { ...sealed, body: sealed.body.replace('"round":1', '"round":2') },
      /^refused: the job is wrongly signed/,
    ],
    ['result-as-job', seal(secret, 'result', 'result-as-job', good), /^refused: the job is wrongly signed/],
  ];
  for (const [id, value, reason] of more) {
    data.set(id, value);
    cases.push([id, good, reason]);
  }
  try {
    // The jobs are queued while the worker starts, the queue paused until it is up.
    const ready = m1.waitFor(/waiting for rounds/);
    await queue.pause();
    for (const [id] of cases) await queue.add('round', data.get(id), { jobId: id, attempts: 3 });
    // Data that is not JSON at all, as redis-cli would leave it.
    await connection.hset(`${PREFIX}:${QUEUE}:not-json`, 'data', '{"v":1,"request":');
    await ready;
    await queue.resume();
    const states = await ended(
      queue,
      connection,
      cases.map(([id]) => id),
    );
    for (const [id, , reason] of cases) {
      const got = states.get(id);
      assert.is(got?.state, 'failed', `${id}: ${JSON.stringify(got)}\n${m1.err()}`);
      assert.match(got?.reason ?? '', reason, `${id}: ${got?.reason}`);
      if (id === 'commit-missing') {
        assert.is(got?.attempts, 3, id);
        continue;
      }
      assert.match(got?.reason ?? '', /^refused: /, id);
      // At once: one attempt, no retry.
      assert.is(got?.attempts, 1, id);
    }
    assert.ok(!existsSync(ran), "no job's proof ran");
    assert.ok(existsSync(join(victim, 'keep.txt')), 'the victim folder is untouched');
    assert.is(git(remote, 'for-each-ref', '--format=%(refname) %(objectname)'), refsBefore, 'nothing pushed');
    assert.ok(!existsSync(join(m1.dir, 'w', 'state')), 'no leaf ran for any job');
    const work = join(m1.dir, 'w', 'work');
    assert.equal(existsSync(work) ? readdirSync(work) : [], [], 'no worktree made');
    // The worker says why, on one line each, its text escaped.
    assert.match(m1.err(), /job agent: refused: request\.agent: a printable name/);
    assert.ok(!m1.err().includes('\u001b'), "no terminal escape reaches the worker's stderr");
  } finally {
    await queue.close();
    connection.disconnect();
    await stopAll(redis, m1);
  }
});

test.run();

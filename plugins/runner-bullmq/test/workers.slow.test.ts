import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs } from '@leap/test-utils';
import { sliceCommand } from '@leap/slice/cli';
import { workersCommand } from '../src/cli.js';
import type { WorkersView } from '../src/workers.js';
import { seal } from '../src/sign.js';
import {
  beatEnv,
  callCommand,
  gateFile,
  openGate,
  readLeap,
  runQueued,
  SECRET,
  setupRemote,
  spawnWorker,
  startRedis,
  stopAll,
  TWO_BALLS_BASE,
  twoBalls,
  until,
  workersView,
} from './helpers.js';

const env = beatEnv;

// Labels, --max-leaf and priorities: labels-priorities.slow.test.ts.
const test = suite('leap workers: presence, drain, forged records, the command line');
test.after.each(cleanupTempDirs);

test('leap workers lists two live workers, their labels and the round each has in hand while it builds; a SIGKILLed one is marked dead', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gates = { x: gateFile(dir, 'x'), y: gateFile(dir, 'y') };
  const { file, agents } = twoBalls(dir, 'team', {}, false, gates);
  const m1 = spawnWorker(
    redis.url,
    remote,
    'm1',
    ['--agents', agents, '--label', 'fb', '--label', 'f1', '--label', 'f2'],
    env(),
  );
  const m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents], env());
  try {
    await Promise.all([m1.waitFor(/waiting for rounds/), m2.waitFor(/waiting for rounds/)]);
    assert.match(m1.err(), /labels f1, f2, fb/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2, env: env() });
    await Promise.all([m1.waitFor(/team\/[xy] round 1: taken/), m2.waitFor(/team\/[xy] round 1: taken/)]);
    const view = await until('both rounds in hand', async () => {
      const v = await workersView(redis.url);
      return v.workers.every((w) => w.inHand.length === 1) && v.workers.length === 2 ? v : null;
    });
    assert.equal(
      view.workers.map((w) => [w.name, w.state, w.labels, w.connected, w.jobs]),
      [
        ['m1', 'live', ['f1', 'f2', 'fb'], true, 1],
        ['m2', 'live', [], true, 1],
      ],
    );
    assert.equal(view.workers.map((w) => w.inHand[0]?.ball).sort(), ['x', 'y']);
    // Each builder waits on its gate: the round's phase, as its worker's signed heartbeat says.
    await until('both building', async () =>
      (await workersView(redis.url)).workers.every((w) => w.inHand[0]?.phase === 'building') ? true : null,
    );
    for (const w of view.workers) {
      assert.is(w.inHand[0]?.slice, 'team');
      assert.is(w.inHand[0]?.round, 1);
      assert.match(w.inHand[0]?.job ?? '', /^team\.[xy]\.r1\./);
      assert.ok((w.heartbeatAgeMs ?? -1) >= 0 && w.heartbeat !== null);
      assert.ok(w.host.length > 0);
    }
    assert.is(view.queue.counts.active, 2);
    // The text form: a line per worker, one per round in hand.
    const text = await callCommand(workersCommand, ['--redis', redis.url], process.cwd(), env());
    assert.match(text.stdout, /^queue leap-rounds: 0 waiting, 0 delayed, 2 active/);
    assert.match(
      text.stdout,
      /\nm1 {2}live {2}host \S+ {2}labels f1,f2,fb {2}1\/1 in hand {2}heartbeat \d+\.\d s ago\n {2}team\/[xy] round 1 building for \d+\.\d s \(job team\.[xy]\.r1\./,
    );
    assert.match(text.stdout, /\nm2 {2}live {2}host \S+ {2}labels every family {2}1\/1 in hand/);

    m2.child.kill('SIGKILL');
    await m2.exited;
    const dead = await until('m2 marked dead', async () =>
      (await workersView(redis.url)).workers.find((w) => w.name === 'm2' && w.state === 'dead'),
    );
    assert.is(dead.inHand.length, 1, 'the round it had in hand, as its last heartbeat said');
    assert.is((await workersView(redis.url)).workers.find((w) => w.name === 'm1')?.state, 'live');
    openGate(gates.x);
    openGate(gates.y);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}`);
  } finally {
    await stopAll(redis, m1, m2);
  }
  // A worker stopped by TERM removes its record.
});

test('leap workers drain m1: m1 finishes the round in hand, takes no more and exits 0; the next round goes to m2', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'x');
  // y after x: its round is queued only once x's is back.
  const { file, agents } = twoBalls(dir, 'drain', {}, true, { x: gate });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents], env());
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 2, env: env() });
    await m1.waitFor(/drain\/x round 1: taken/);
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents], env());
    await m2.waitFor(/waiting for rounds/);
    const asked = await callCommand(workersCommand, ['drain', 'm1', '--redis', redis.url], process.cwd(), env());
    assert.is(asked.code, 0, asked.stderr);
    assert.is(
      asked.stdout,
      'leap workers: m1: drain asked: it finishes the rounds in hand, takes no more, and exits\n',
    );
    await m1.waitFor(/drain asked: finishing the 1 round\(s\) in hand, taking no more/);
    const view = await workersView(redis.url);
    assert.equal(
      view.workers.map((w) => [w.name, w.state, w.inHand.map((h) => h.ball)]),
      [
        ['m1', 'draining', ['x']],
        ['m2', 'live', []],
      ],
    );
    openGate(gate);
    assert.is((await m1.exited).code, 0, m1.err());
    assert.match(
      m1.err(),
      /drain\/x round 1: receipt 1[\s\S]*m1: drained: the rounds in hand are finished, no more taken[\s\S]*m1: stopped/,
    );
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m1.err()}\n${m2.err()}`);
    assert.equal(
      ['x', 'y'].map((id) => readLeap<{ worker: string }>(repo, 'drain', id, 'round-1.json')?.worker),
      ['m1', 'm2'],
    );
    assert.not.match(m1.err(), /drain\/y/);
    // A drained worker that exited is no longer listed; asking an unknown name is bad input.
    assert.equal(
      (await workersView(redis.url)).workers.map((w) => w.name),
      ['m2'],
    );
    const unknown = await callCommand(workersCommand, ['drain', 'nobody', '--redis', redis.url], process.cwd(), env());
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /no worker named "nobody" \(the workers: m2\)/);
    const all = await callCommand(workersCommand, ['drain', '--all', '--redis', redis.url], process.cwd(), env());
    assert.is(all.stdout, 'leap workers: m2: drain asked: it finishes the rounds in hand, takes no more, and exits\n');
    assert.is((await m2.exited).code, 0, m2.err());
  } finally {
    await stopAll(redis, m1, m2);
  }
});

test('TERM while draining: the leaf it ends makes its round handed back (not returned held), and another worker builds it', async () => {
  const redis = await startRedis();
  const { remote, repo, dir } = setupRemote(TWO_BALLS_BASE);
  const gate = gateFile(dir, 'x');
  const { file, agents } = twoBalls(dir, 'late', {}, false, { x: gate });
  const m1 = spawnWorker(redis.url, remote, 'm1', ['--agents', agents], env());
  let m2: ReturnType<typeof spawnWorker> | null = null;
  try {
    await m1.waitFor(/waiting for rounds/);
    const { summary: running, lines } = runQueued(redis.url, file, repo, agents, { jobs: 1, env: env() });
    await m1.waitFor(/late\/x round 1: taken/);
    // m2 starts now: the engine runs one round at a time, so it has nothing to take until m1 hands x back.
    m2 = spawnWorker(redis.url, remote, 'm2', ['--agents', agents], env());
    await until('the builder leaf runs', () => existsSync(join(m1.dir, 'w', 'state', 'late', 'x', 'build-x-1.pid')));
    assert.is((await callCommand(workersCommand, ['drain', 'm1', '--redis', redis.url], process.cwd(), env())).code, 0);
    await m1.waitFor(/drain asked/);
    m1.child.kill('SIGTERM');
    assert.is((await m1.exited).code, 0, m1.err());
    assert.match(
      m1.err(),
      /SIGTERM while draining[\s\S]*late\/x round 1: handed back \(this worker was asked to stop and its builder leaf build-x-1 was ended\)/,
    );
    openGate(gate);
    const summary = await running;
    assert.is(summary.receipt, 1, `${lines.join('\n')}\n${m2.err()}`);
    assert.is(readLeap<{ worker: string }>(repo, 'late', 'x', 'round-1.json')?.worker, 'm2');
  } finally {
    await stopAll(redis, m1, m2);
  }
});

test('hostile: heartbeat records forged in Redis (unsigned, another secret, copied to another name, junk) are listed as forged and nothing of them shown; a signed one is printed escaped and masked; forget', async () => {
  const redis = await startRedis();
  const { Redis } = await import('ioredis');
  const raw = new Redis(redis.url);
  const record = (name: string, extra: Record<string, unknown> = {}) => ({
    v: 1,
    name,
    host: 'h',
    pid: 1,
    labels: [],
    jobs: 1,
    started: Date.now(),
    beat: Date.now(),
    ttlMs: 600_000,
    draining: false,
    inHand: [],
    ...extra,
  });
  const signed = (name: string, body: unknown, secret = SECRET) =>
    JSON.stringify(seal(Buffer.from(secret), 'heartbeat', name, body));
  try {
    const evil = 'evil\u001b[2J\u009b31m';
    // Unsigned: what a Redis writer without the secret can write. It claims a live worker building a ghost ball.
    await raw.set(
      `leap-workers:${evil}`,
      JSON.stringify(
        record(evil, {
          host: 'redis://:hunter2@10.0.0.5:6379/evilhost',
          labels: ['ghost-label'],
          inHand: [{ job: 'ghost.job', slice: 'ghost', ball: 'g', round: 1, since: Date.now() }],
        }),
      ),
    );
    await raw.set('leap-workers:junk', '\u0000not json');
    await raw.set(
      'leap-workers:other',
      signed('other', record('other', { host: 'other-secret-host' }), 'another secret of 16+ characters'),
    );
    // A genuine record of m1, copied to another name: its signature binds it to m1.
    await raw.set('leap-workers:m9', signed('m1', record('m1', { host: 'copied-host' })));
    await raw.set('leap-workers:liar', signed('liar', record('someone else')));
    // Signed with the secret (a worker that holds it): believed, yet its text still printed escaped and masked.
    const shady = 'shady\u0007';
    await raw.set(
      `leap-workers:${shady}`,
      signed(
        shady,
        record(shady, {
          beat: Date.now() - 60_000,
          host: 'redis://:hunter2@10.0.0.5:6379/\u001b]0;pwn\u0007',
          pid: 'x',
          labels: ['https://tok3n@git.example/r.git', '\u0007bell', 42],
          jobs: -1,
          ttlMs: 1e30,
          draining: 'yes',
          inHand: [
            { job: 'j\nleap workers: m9 live FAKE', slice: { x: 1 }, ball: '\u001b[1A', round: 'one', since: 'never' },
            null,
            7,
          ],
        }),
      ),
    );
    const text = await callCommand(workersCommand, ['--redis', redis.url], process.cwd(), env());
    const json = await callCommand(workersCommand, ['--redis', redis.url, '--json'], process.cwd(), env());
    for (const out of [text, json]) {
      assert.is(out.code, 0, out.stderr);
      assert.not.match(out.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no control character but newlines');
      assert.not.ok(out.stdout.includes('hunter2'), 'the password masked');
      assert.not.ok(out.stdout.includes('tok3n'), 'the token masked');
      // Nothing of a forged record is shown.
      for (const word of ['ghost', 'evilhost', 'other-secret-host', 'copied-host'])
        assert.not.ok(out.stdout.includes(word), `${word}: ${out.stdout}`);
    }
    assert.ok(
      text.stdout.includes('evil\\u001b[2J\\u009b31m  forged record (the heartbeat is unsigned): ignored'),
      text.stdout,
    );
    assert.match(text.stdout, /\njunk {2}forged record \(not JSON, so unsigned\): ignored/);
    assert.match(
      text.stdout,
      /\nother {2}forged record \(the heartbeat is wrongly signed \(another secret, or its content or worker's name changed\)\): ignored/,
    );
    assert.match(text.stdout, /\nm9 {2}forged record \(the heartbeat is wrongly signed/);
    assert.match(text.stdout, /\nliar {2}forged record \(its name is not its key\): ignored/);
    assert.ok(
      text.stdout.includes('shady\\u0007  dead  host redis://:***@10.0.0.5:6379/\\u001b]0;pwn\\u0007'),
      text.stdout,
    );
    assert.ok(text.stdout.includes('https://***@git.example/r.git'), text.stdout);
    assert.ok(text.stdout.includes('j\\u000aleap workers: m9 live FAKE'), 'a newline in a job id stays on its line');
    assert.not.match(text.stdout, /\nleap workers: m9/);
    const view = JSON.parse(json.stdout) as WorkersView;
    assert.equal(
      view.workers.map((w) => [w.name, w.state]),
      [
        ['evil\\u001b[2J\\u009b31m', 'forged'],
        ['junk', 'forged'],
        ['liar', 'forged'],
        ['m9', 'forged'],
        ['other', 'forged'],
        ['shady\\u0007', 'dead'],
      ],
    );
    const evilView = view.workers[0];
    assert.equal([evilView?.host, evilView?.labels, evilView?.inHand, evilView?.heartbeat], ['', [], [], null]);
    const shadyView = view.workers.find((w) => w.state === 'dead');
    // Not connected to BullMQ: dead, whatever its heartbeat says.
    assert.is(shadyView?.connected, false);
    assert.equal(shadyView?.labels, ['https://***@git.example/r.git', '\\u0007bell', '']);
    // A drain of a forged record is refused (no such worker); of the signed one asked, and printed escaped.
    const drainForged = await callCommand(workersCommand, ['drain', 'm9', '--redis', redis.url], process.cwd(), env());
    assert.is(drainForged.code, 2);
    assert.match(
      drainForged.stderr,
      /no worker named "m9" \(its record is forged: the heartbeat is wrongly signed[^\n]*leap workers forget --dead removes it\) \(the workers: shady\\u0007\)/,
    );
    assert.is(await raw.exists('leap-workers-drain:m9'), 0);
    const drain = await callCommand(workersCommand, ['drain', shady, '--redis', redis.url], process.cwd(), env());
    assert.is(drain.code, 0, drain.stderr);
    assert.not.match(drain.stdout, /\u0007/);

    // forget: a name with no record is exit 2; a dead one by name; then every dead or forged one.
    const nobody = await callCommand(workersCommand, ['forget', 'nobody', '--redis', redis.url], process.cwd(), env());
    assert.is(nobody.code, 2);
    assert.match(nobody.stderr, /no worker named "nobody" \(the workers: shady\\u0007\)/);
    assert.is(await raw.exists(`leap-workers:${shady}`), 1, 'a refused forget removes nothing');
    const one = await callCommand(
      workersCommand,
      ['forget', shady, '--redis', redis.url, '--json'],
      process.cwd(),
      env(),
    );
    assert.is(one.code, 0, one.stderr);
    const forgotten = (
      JSON.parse(one.stdout) as { forgotten: { name: string; state: string; heartbeatAgeMs: number }[] }
    ).forgotten;
    assert.equal(
      forgotten.map((f) => [f.name, f.state]),
      [['shady\\u0007', 'dead']],
    );
    assert.ok(forgotten[0] !== undefined && forgotten[0].heartbeatAgeMs >= 0);
    assert.equal(
      [await raw.exists(`leap-workers:${shady}`), await raw.exists(`leap-workers-drain:${shady}`)],
      [0, 0],
      'the record and its drain flag gone',
    );
    const rest = await callCommand(workersCommand, ['forget', '--dead', '--redis', redis.url], process.cwd(), env());
    assert.is(rest.code, 0, rest.stderr);
    assert.is(rest.stdout.split('\n').filter((l) => l.endsWith('forgotten (a forged record)')).length, 5, rest.stdout);
    assert.match(rest.stdout, /^leap workers: evil\\u001b\[2J\\u009b31m: forgotten \(a forged record\)\n/);
    assert.equal(await raw.keys('leap-workers*'), []);
    const none = await callCommand(workersCommand, ['forget', '--dead', '--redis', redis.url], process.cwd(), env());
    assert.is(none.stdout, 'leap workers: no dead or forged record to forget\n');
    // Without the queue secret the records cannot be judged: bad input.
    const { LEAP_QUEUE_SECRET: _s, ...noSecret } = env();
    const blind = await callCommand(workersCommand, ['--redis', redis.url], process.cwd(), noSecret);
    assert.is(blind.code, 2);
    assert.match(blind.stderr, /set LEAP_QUEUE_SECRET or give --secret-file FILE/);
  } finally {
    raw.disconnect();
    await redis.stop();
  }
});

test('hostile: a live worker whose record is overwritten by a forgery shows forged until its next signed beat; a forged drain flag is ignored (said once); forget refuses a live worker', async () => {
  const redis = await startRedis();
  const { remote } = setupRemote(TWO_BALLS_BASE);
  const { Redis } = await import('ioredis');
  const raw = new Redis(redis.url);
  const m1 = spawnWorker(redis.url, remote, 'm1', [], env());
  try {
    await m1.waitFor(/waiting for rounds/);
    const live = await callCommand(workersCommand, ['forget', 'm1', '--redis', redis.url], process.cwd(), env());
    assert.is(live.code, 2);
    assert.match(
      live.stderr,
      /cannot forget "m1": it is live \(heartbeat [\d.]+ s ago\), and a live worker writes its record again at its next heartbeat: drain it \(leap workers drain m1\) or stop it first/,
    );
    // Stopped, m1 beats no more: what the forger writes stays (m1's connection stays open, so BullMQ still lists it).
    m1.child.kill('SIGSTOP');
    await raw.set(
      'leap-workers:m1',
      JSON.stringify({
        v: 1,
        name: 'm1',
        host: 'ghost-host',
        pid: 1,
        labels: [],
        jobs: 9,
        started: 0,
        beat: Date.now(),
        ttlMs: 600_000,
        draining: false,
        inHand: [{ job: 'ghost', slice: 's', ball: 'b', round: 1, since: Date.now() }],
      }),
    );
    await raw.set('leap-workers-drain:m1', JSON.stringify({ at: Date.now() }));
    const forged = await workersView(redis.url);
    assert.equal(
      forged.workers.map((w) => [w.name, w.state, w.host, w.inHand.length]),
      [['m1', 'forged', '', 0]],
    );
    m1.child.kill('SIGCONT');
    await m1.waitFor(/a drain flag for m1 in Redis is not signed with the queue secret: ignored/);
    const back = await until('m1 signed again', async () =>
      (await workersView(redis.url)).workers.find((w) => w.name === 'm1' && w.state === 'live'),
    );
    assert.is(back.jobs, 1);
    await new Promise((r) => setTimeout(r, 600));
    assert.is((await workersView(redis.url)).workers[0]?.state, 'live', 'the forged drain flag drained nobody');
    assert.is(m1.err().match(/a drain flag for m1/g)?.length, 1, 'said once');
    assert.not.match(m1.err(), /drain asked/);
    // A signed drain (leap workers drain) is obeyed; the drained worker's record is gone, and forgetting it is exit 2.
    assert.is((await callCommand(workersCommand, ['drain', 'm1', '--redis', redis.url], process.cwd(), env())).code, 0);
    assert.is((await m1.exited).code, 0, m1.err());
    const gone = await callCommand(workersCommand, ['forget', 'm1', '--redis', redis.url], process.cwd(), env());
    assert.is(gone.code, 2);
    assert.match(gone.stderr, /no worker named "m1" \(no worker has a record\)/);
  } finally {
    raw.disconnect();
    await stopAll(redis, m1);
  }
});

test('leap workers: --help, bad input is exit 2, Redis not reachable is exit 2, pause and resume the queue; slice run --priority', async () => {
  const usage = await callCommand(workersCommand, ['--help'], process.cwd(), env());
  assert.is(usage.code, 0);
  assert.match(
    usage.stdout,
    /^Usage: leap workers \[--redis URL\] \[--secret-file FILE\] \[--json\]\n {7}leap workers drain NAME\.\.\. \| --all/,
  );
  assert.match(usage.stdout, /Exit codes: 0 done; 2 bad input/);
  assert.match(
    usage.stdout,
    /\n {7}leap workers forget NAME\.\.\. \| --dead \[--redis URL\] \[--secret-file FILE\] \[--json\]\n/,
  );
  for (const [argv, why] of [
    [['frob'], /unknown action "frob"/],
    [['drain'], /takes worker names or --all/],
    [['drain', 'm1', '--all'], /takes worker names or --all/],
    [['pause', 'now'], /unexpected argument "now"/],
    [['--all'], /--all goes with drain/],
    [['pause', '--json'], /--json goes with the list/],
    [['drain', 'm1', '--json'], /--json goes with the list/],
    [['forget'], /takes worker names or --dead/],
    [['forget', 'm1', '--dead'], /takes worker names or --dead/],
    [['--dead'], /--dead goes with forget/],
    [['pause', '--secret-file', '/x'], /--secret-file goes with the list, drain and forget/],
    [
      ['--redis', 'redis://127.0.0.1:1', '--secret-file', '/nonexistent/secret'],
      /--secret-file "\/nonexistent\/secret": cannot read it \(ENOENT\)/,
    ],
    [['--redis', 'http://x'], /Expected --redis to be a redis:\/\/ or rediss:\/\/ URL/],
    [['--redis', 'redis://:s3cret@127.0.0.1:1'], /cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/],
  ] as const) {
    const out = await callCommand(workersCommand, [...argv], process.cwd(), env());
    assert.is(out.code, 2, `${argv.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, why);
    assert.not.ok(out.stderr.includes('s3cret'));
  }
  // --priority is checked before anything is touched.
  const { repo, dir } = setupRemote(TWO_BALLS_BASE);
  const { file, agents } = twoBalls(dir, 'prio', {});
  for (const bad of ['1001', '-1', 'high', '1.5']) {
    const out = await callCommand(
      sliceCommand,
      [
        'run',
        file,
        '--runner',
        'bullmq',
        '--redis',
        'redis://127.0.0.1:1',
        `--priority=${bad}`,
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
      ],
      repo,
      env(),
    );
    assert.is(out.code, 2, out.stderr);
    assert.match(
      out.stderr,
      new RegExp(`Expected --priority to be an integer from 0 to 1000, got "${bad.replace('.', '\\.')}"`),
    );
  }
  const help = await callCommand(sliceCommand, ['run', '--runner', 'bullmq', '--help'], repo, env());
  assert.match(
    help.stdout,
    /--priority N {8}this slice's rounds before those of slices of a lower priority \(0 to 1000/,
  );
  const redis = await startRedis();
  try {
    const paused = await callCommand(workersCommand, ['pause', '--redis', redis.url], process.cwd(), env());
    assert.is(paused.code, 0);
    assert.match(paused.stdout, /the queue is paused/);
    assert.is((await workersView(redis.url)).queue.paused, true);
    const list = await callCommand(workersCommand, ['--redis', redis.url], process.cwd(), env());
    assert.match(list.stdout, /^queue leap-rounds \(paused\): 0 waiting/);
    assert.match(list.stdout, /\nno worker has a record/);
    await callCommand(workersCommand, ['resume', '--redis', redis.url], process.cwd(), env());
    assert.is((await workersView(redis.url)).queue.paused, false);
  } finally {
    await redis.stop();
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { sliceCommand } from '@leap/slice/cli';
import { workerCommand } from '../src/cli.js';
import { ball, callCommand as call, freePort, setupRemote, testEnv, writeSlice } from './helpers.js';

const test = suite('leap worker and leap slice run --runner bullmq: the command lines');
test.after.each(cleanupTempDirs);

test('leap worker --help: the usage, the options, the exit codes', async () => {
  const out = await call(workerCommand, ['--help'], process.cwd());
  assert.is(out.code, 0);
  for (const text of [
    'Usage: leap worker --redis URL --repo GIT_URL [--agents FILE] [--secret-file FILE] [--jobs N] [--dir DIR]',
    '--agents FILE',
    '--secret-file FILE',
    '--jobs N',
    'LEAP_BULLMQ_LOCK_MS',
    'Exit codes: 0 stopped by TERM or INT, or drained; 2 bad input',
  ])
    assert.ok(out.stdout.includes(text), text);
});

test('leap worker: bad input is exit 2 with what was expected and what was found; nothing left on disk', async () => {
  const cwd = makeTempDir('leap-worker-cli-');
  const port = await freePort();
  const cases: [string[], RegExp][] = [
    [['--repo', '/r'], /--redis URL is required/],
    [
      ['--redis', 'http://127.0.0.1:1', '--repo', '/r'],
      /Expected --redis to be a redis:\/\/ or rediss:\/\/ URL, got "http:\/\/127\.0\.0\.1:1"/,
    ],
    [['--redis', 'not a url', '--repo', '/r'], /Expected --redis to be a redis:\/\/ URL, got "not a url"/],
    [['--redis', `redis://127.0.0.1:${port}`], /--repo GIT_URL is required/],
    [
      ['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', '--jobs', '0'],
      /Expected --jobs to be a positive integer, got "0"/,
    ],
    [
      ['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', '--name', ''],
      /Expected --name to be a non-empty name without control characters, got ""/,
    ],
    [
      ['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', '--name', 'm\n\u001b[2J'],
      /Expected --name to be a non-empty name without control characters, got "m\\n\\u001b\[2J"/,
    ],
    [['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', '--agents', 'nope.json'], /--agents "nope\.json": /],
    [['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', 'extra'], /unexpected argument "extra"/],
    [
      ['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r', '--dir', 'w'],
      new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    ],
  ];
  for (const [argv, message] of cases) {
    const out = await call(workerCommand, argv, cwd);
    assert.is(out.code, 2, argv.join(' '));
    assert.match(out.stderr, message);
  }
  // The queue secret: required, long enough, from the environment or a file; never echoed. A Redis password neither.
  const ok = ['--redis', `redis://127.0.0.1:${port}`, '--repo', '/r'];
  const short = join(cwd, 'short.secret');
  writeFileSync(short, 'tiny-secret-15c\n');
  const secrets: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [
      ok,
      testEnv({ LEAP_QUEUE_SECRET: '' }),
      /the queue needs a secret shared by the engine and every worker: set LEAP_QUEUE_SECRET or give --secret-file FILE \(at least 16 characters/,
    ],
    [
      ok,
      testEnv({ LEAP_QUEUE_SECRET: 'hunter2-is-short'.slice(0, 15) }),
      /the queue secret from LEAP_QUEUE_SECRET has 15 characters; it needs at least 16/,
    ],
    [
      [...ok, '--secret-file', short],
      testEnv(),
      /the queue secret from --secret-file "[^"]*short\.secret" has 15 characters/,
    ],
    [[...ok, '--secret-file', join(cwd, 'none')], testEnv(), /--secret-file "[^"]*none": cannot read it \(ENOENT\)/],
    [
      ['--redis', `redis://:hunter2-password@127.0.0.1:${port}`, '--repo', '/r'],
      testEnv(),
      new RegExp(`cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: `),
    ],
    [
      ['--repo', '/r'],
      testEnv({ LEAP_REDIS_URL: `redis://:hunter2-password@127.0.0.1:${port}` }),
      new RegExp(`cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: `),
    ],
    [
      ['--redis', 'redis//:hunter2-password@x', '--repo', '/r'],
      testEnv(),
      /Expected --redis to be a redis:\/\/ URL, got a value with an @ \(not shown/,
    ],
  ];
  for (const [argv, env, message] of secrets) {
    const out = await call(workerCommand, argv, cwd, env);
    assert.is(out.code, 2, argv.join(' '));
    assert.match(out.stderr, message);
    for (const secret of ['hunter2', 'tiny-secret', 'queue secret, $HOME'])
      assert.not.ok(out.stderr.includes(secret), `${secret} echoed: ${out.stderr}`);
  }
  assert.ok(!existsSync(join(cwd, 'w')) && !existsSync(join(cwd, '.leap-worker')), 'no folder made');
});

test('leap slice run --runner: a runner that does not exist, --redis without bullmq, bullmq without --redis, without a queue secret, with a remote the repository lacks or with no Redis: exit 2, nothing touched', async () => {
  const { remote, repo, dir } = setupRemote({ 'src/a.txt': 'old a\n' });
  const file = writeSlice(dir, { id: 'bad', balls: [ball('a', ['src/a.txt'], { 'src/a.txt': 'old a\n' })] });
  const port = await freePort();
  // Redis is not there: each check below comes before the ping, and before the slice's lock.
  const bull = ['--runner', 'bullmq', '--redis', `redis://127.0.0.1:${port}`];
  const short = join(dir, 'short.secret');
  writeFileSync(short, 'tiny-secret-15c\n');
  const noSecret = testEnv({ LEAP_QUEUE_SECRET: '' });
  const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
    [
      ['--runner', 'k8s'],
      /--runner k8s needs the package @leap\/runner-k8s, which is not installed: npm i -D @leap\/runner-k8s \(beside @leap\/cli/,
    ],
    [
      ['--runner', 'A B'],
      /Expected --runner to be local, a runner's short name \(bullmq\) or its package's name, got "A B"/,
    ],
    [
      ['--redis', `redis://127.0.0.1:${port}`],
      /Unknown option '--redis': a runner's options are taken after --runner NAME/,
    ],
    [['--secret-file', short], /Unknown option '--secret-file': a runner's options are taken after --runner NAME/],
    [['--runner', 'local', '--remote', 'origin'], /Unknown option '--remote'/],
    [['--runner', 'bullmq'], /--redis URL is required/],
    [
      bull,
      /the queue needs a secret shared by the engine and every worker: set LEAP_QUEUE_SECRET or give --secret-file FILE/,
      noSecret,
    ],
    [
      [...bull, '--secret-file', 'short.secret'],
      /the queue secret from --secret-file "[^"]*short\.secret" has 15 characters; it needs at least 16/,
    ],
    [[...bull, '--secret-file', join(dir, 'none')], /--secret-file "[^"]*none": cannot read it \(ENOENT\)/],
    [[...bull, '--secret-file', dir], /--secret-file "[^"]*": cannot read it \(EISDIR\)/],
    [
      [...bull, '--remote', 'nosuchremote'],
      /--remote "nosuchremote": the repository has no remote of that name \(its remotes: origin\)/,
    ],
    [[...bull, '--remote', join(dir, 'gone.git')], /--remote "[^"]*gone\.git": no such path/],
    [bull, /cannot reach Redis at/],
  ];
  for (const [extra, message, env] of cases) {
    // A relative --secret-file is the caller's: it is read from the folder the command runs in.
    const out = await call(sliceCommand, ['run', file, ...extra], extra.includes('short.secret') ? dir : repo, env);
    assert.is(out.code, 2, extra.join(' '));
    assert.match(out.stderr, message);
    assert.not.ok(out.stderr.includes('tiny-secret'), 'the secret is not echoed');
  }
  // Nothing touched: no records, no state folder, no lock, no branch, nothing pushed.
  assert.ok(!existsSync(join(repo, '.leap')), 'nothing run');
  assert.ok(!existsSync(join(repo, '.tdd')), 'no state folder');
  assert.is(git(repo, 'for-each-ref', 'refs/heads/leap').trim(), '');
  assert.is(git(remote, 'for-each-ref', 'refs/heads/leap').trim(), '');
  const help = await call(sliceCommand, ['run', '--help'], repo);
  assert.match(help.stdout, /--runner NAME {6}where balls are built: local \(default/);
  assert.not.match(help.stdout, /--redis URL/, "a runner's options are its own");
  // The runner's options are found with it: its help lists them.
  const bullHelp = await call(sliceCommand, ['run', '--runner', 'bullmq', '--help'], repo);
  assert.is(bullHelp.code, 0);
  assert.match(bullHelp.stdout, /Options of --runner bullmq:\n {2}--redis URL {9}the Redis server/);
  assert.match(bullHelp.stdout, /--secret-file FILE {2}the queue secret/);
});

test.run();

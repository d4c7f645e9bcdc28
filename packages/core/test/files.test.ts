import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
  mkdirSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupTempDirs, isAlive, makeTempDir, waitFor } from '@leap/test-utils';
import {
  writeFileAtomic,
  readFileIfExists,
  readTail,
  readToEnd,
  tryLock,
  readLockHolder,
  processIdentity,
  isProcessAlive,
  readProcStat,
  readProcBytes,
  InternalError,
} from '../src/index.js';
import { syncDir } from '../src/atomic-write.js';
import { acquireLock } from '../src/lock.js';
import { bootId } from '../src/process-identity.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

// ---
const atomic = suite('writeFileAtomic');
atomic.after(cleanupTempDirs);
atomic('replaces the file whole and leaves no temp file', () => {
  const dir = makeTempDir();
  const file = join(dir, 'x.exit');
  writeFileAtomic(file, '0\nstatus=exited\n');
  writeFileAtomic(file, Buffer.from('2\nstatus=killed-timeout\n'));
  assert.is(readFileSync(file, 'utf8'), '2\nstatus=killed-timeout\n');
  assert.equal(readdirSync(dir), ['x.exit']);
  syncDir(join(dir, 'missing'));
});
atomic(
  'text given as parts, or pushed by a function, is written in order, byte for byte, whatever their sizes and characters; the byte count is returned',
  () => {
    const dir = makeTempDir();
    const file = join(dir, 'report.html');
    // Parts that fill the write buffer exactly, overflow it, dwarf it, and hold characters of 1 to 4 bytes.
    const parts = [
      '<p>',
      'a'.repeat(64 * 1024 - 3),
      'é€🦀 $(x) `y` "q"\n',
      '🦀'.repeat(30_000),
      '',
      ...Array.from({ length: 5000 }, (_, i) => `<td>${i} · ${'é'.repeat(i % 9)}`),
    ];
    const whole = parts.join('');
    assert.is(writeFileAtomic(file, parts, { durable: false }), Buffer.byteLength(whole));
    assert.is(readFileSync(file, 'utf8'), whole);
    assert.is(
      writeFileAtomic(file, (out) => {
        for (const part of ['é', '🦀', '', ...parts.slice(1, 3)]) out.push(part);
      }),
      Buffer.byteLength(`é🦀${parts[1]}${parts[2]}`),
    );
    assert.is(readFileSync(file, 'utf8'), `é🦀${parts[1]}${parts[2]}`);
    assert.throws(
      () =>
        writeFileAtomic(file, (out) => {
          out.push('half');
          throw new Error('the producer failed');
        }),
      /the producer failed/,
    );
    assert.is(
      readFileSync(file, 'utf8'),
      `é🦀${parts[1]}${parts[2]}`,
      'a producer that throws leaves the file as it was',
    );
    assert.is(writeFileAtomic(file, [], { durable: false }), 0);
    assert.is(readFileSync(file, 'utf8'), '');
    assert.is(writeFileAtomic(file, 'é'), 2);
    assert.equal(readdirSync(dir), ['report.html']);
  },
);
atomic('a fixed temp path (for journals) is used, replaced if a crash left it, and gone after', () => {
  const dir = makeTempDir();
  const file = join(dir, 'journal.json');
  const temp = join(dir, 'journal.json.tmp');
  writeFileSync(temp, 'half-written by a killed process');
  writeFileAtomic(file, '{"ok":true}\n', { tempPath: temp, mode: 0o600 });
  assert.is(readFileSync(file, 'utf8'), '{"ok":true}\n');
  assert.equal(readdirSync(dir), ['journal.json']);
  assert.is(statSync(file).mode & 0o777, 0o600);
  writeFileAtomic(file, 'x', 0o640);
  assert.is(statSync(file).mode & 0o777, 0o640, 'each write gives the file the mode it asks for');
});
atomic('durable: false skips the fsyncs and still replaces whole', () => {
  const dir = makeTempDir();
  const file = join(dir, 'leaf.exit');
  writeFileAtomic(file, '0\nstatus=exited\n', { durable: false });
  writeFileAtomic(file, '2\nstatus=killed-timeout\n', { durable: false, mode: 0o600 });
  assert.is(readFileSync(file, 'utf8'), '2\nstatus=killed-timeout\n');
  assert.equal(readdirSync(dir), ['leaf.exit']);
});
atomic('readFileIfExists: the text, or null for a missing file; other failures throw', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'a'), 'é');
  assert.is(readFileIfExists(join(dir, 'a')), 'é');
  assert.is(readFileIfExists(join(dir, 'missing')), null);
  assert.throws(() => readFileIfExists(dir), /EISDIR/);
});
atomic("readTail: a file's last bytes after an offset, '' for a missing one", () => {
  const dir = makeTempDir();
  const file = join(dir, 'log');
  writeFileSync(file, 'first\nsecond $`"\' é\n');
  assert.is(readTail(file, 1024), 'first\nsecond $`"\' é\n');
  assert.is(readTail(file, 10), 'd $`"\' é\n', 'the last 10 bytes (é is two)');
  assert.is(readTail(file, 1024, 6), 'second $`"\' é\n', 'only what came after the offset');
  assert.is(readTail(file, 1024, 999), '', 'an offset past the end');
  assert.is(readTail(join(dir, 'missing'), 1024), '');
});
atomic('a failed rename removes the temp file and throws', () => {
  const dir = makeTempDir();
  mkdirSync(join(dir, 'target'));
  writeFileSync(join(dir, 'target', 'keep'), '');
  assert.throws(() => writeFileAtomic(join(dir, 'target'), 'x'), /EISDIR|ENOTEMPTY|EEXIST/);
  assert.equal(readdirSync(dir), ['target']);
  assert.throws(() => writeFileAtomic(join(dir, 'nope', 'f'), 'x'), /ENOENT/);
});
atomic('a reader never sees a partial file while another process rewrites it', () => {
  const dir = makeTempDir();
  const file = join(dir, 'f');
  const big = (c: string) => c.repeat(256 * 1024);
  writeFileAtomic(file, big('a'));
  const writer = spawn(process.execPath, [
    '--input-type=module',
    '-e',
    `
    import { writeFileAtomic } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
    for (let i = 0; i < 200; i++) writeFileAtomic(${JSON.stringify(file)}, (i % 2 ? 'b' : 'a').repeat(256 * 1024));
  `,
  ]);
  let reads = 0;
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      const text = readFileSync(file, 'latin1');
      reads++;
      if (text !== big('a') && text !== big('b')) reject(new Error(`partial read of ${text.length} bytes`));
    };
    const timer = setInterval(check, 0);
    writer.on('exit', (code) => {
      clearInterval(timer);
      check();
      assert.is(code, 0);
      assert.ok(reads > 0);
      resolve();
    });
  });
});
atomic('readToEnd: a file far larger than the buffer, whole; the grown buffer is kept for the next read', () => {
  const file = join(makeTempDir(), 'big');
  const text = 'é 🦀 line\n'.repeat(5_000);
  writeFileSync(file, text);
  const into = { buffer: Buffer.alloc(16) };
  const fd = openSync(file, 'r');
  try {
    assert.is(readToEnd(fd, into).toString('utf8'), text);
  } finally {
    closeSync(fd);
  }
  assert.ok(into.buffer.length >= Buffer.byteLength(text));
});

atomic(
  'readToEnd: a non-blocking FIFO with no data yet calls onAgain and reads on; without onAgain EAGAIN throws',
  () => {
    const fifo = join(makeTempDir(), 'fifo');
    assert.is(spawnSync('mkfifo', [fifo]).status, 0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    try {
      assert.throws(
        () => readToEnd(reader, { buffer: Buffer.alloc(8) }),
        (e: NodeJS.ErrnoException) => e.code === 'EAGAIN',
      );
      // The writer answers each EAGAIN: first with bytes, then by closing, which ends the stream.
      const steps = [() => writeSync(writer, '$(x) `y` "q"'), () => closeSync(writer)];
      let calls = 0;
      const bytes = readToEnd(reader, { buffer: Buffer.alloc(4) }, () => steps[calls++]?.());
      assert.is(bytes.toString('utf8'), '$(x) `y` "q"');
      assert.is(calls, 2);
    } finally {
      closeSync(reader);
    }
  },
);

atomic.run();

// ---
const identity = suite('process identity');
identity('this process is alive; its identity has a start time and boot id', () => {
  const me = processIdentity();
  assert.ok(me !== null);
  assert.match(me!.starttime, /^\d+$/);
  assert.is(me!.bootId, bootId());
  assert.ok(isProcessAlive(me!));
  assert.not.ok(isProcessAlive({ ...me!, starttime: '1' }), 'a reused pid (other start time) is not alive');
  assert.not.ok(isProcessAlive({ ...me!, bootId: 'other-boot' }), 'a pid from another boot is not alive');
  assert.is(processIdentity(2 ** 22 + 12345), null);
  assert.is(readProcStat(2 ** 22 + 12345), null);
  // Our own identity is read once; each call gets its own copy, equal to what /proc says.
  const again = processIdentity(process.pid);
  assert.equal(again, me);
  assert.is.not(again, me);
  again!.starttime = 'changed';
  assert.is(processIdentity()?.starttime, readProcStat(process.pid)?.[19]);
});
identity('a zombie is not alive', async () => {
  // A short sleep runs in the background, its shell becomes `sleep 3`, which never reaps it: a zombie
  // once the short one ends (it must outlive the exec, or the shell could reap it first).
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 4'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) =>
    parent.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim()))),
  );
  const becameZombie = await waitFor(() => readProcStat(pid)?.[0] === 'Z', 10_000);
  assert.ok(becameZombie, 'the child became a zombie');
  assert.not.ok(isProcessAlive({ pid }));
  assert.not.ok(isAlive(pid));
  parent.kill('SIGKILL');
});
identity(
  'readProcBytes: a whole /proc file, however long, through one reused buffer; null when unreadable',
  async () => {
    const own = readProcBytes(`/proc/${process.pid}/stat`);
    assert.ok(own !== null);
    assert.ok(own!.toString('latin1').startsWith(`${process.pid} (`));
    // An environment far larger than the 4 KiB the buffer starts with: read whole, the last variable included.
    const big = 'x'.repeat(20_000);
    const child = spawn('sleep', ['5'], { env: { LEAP_BIG: big, LEAP_LAST: 'end' }, stdio: 'ignore' });
    try {
      await waitFor(() => readProcBytes(`/proc/${child.pid}/environ`)?.includes('LEAP_LAST=end') === true);
      // Node adds NODE_V8_COVERAGE to a child's environment under c8, so look for ours within it.
      const environ = readProcBytes(`/proc/${child.pid}/environ`)!.toString('latin1');
      assert.ok(
        environ.startsWith(`LEAP_BIG=${big}\0`) || environ.includes(`\0LEAP_BIG=${big}\0`),
        'the long variable, whole',
      );
      assert.ok(environ.endsWith('\0') && environ.includes('LEAP_LAST=end\0'));
    } finally {
      child.kill('SIGKILL');
    }
    assert.is(readProcBytes('/proc/no-such-process/stat'), null);
  },
);

identity.run();

// ---
const lock = suite('lock');
lock.after(cleanupTempDirs);
lock('one holder at a time; release only removes our own lock', () => {
  const dir = makeTempDir();
  const file = join(dir, 'tick.lock');
  const held = tryLock(file);
  assert.ok(held !== null);
  assert.is(readLockHolder(file)?.pid, process.pid);
  assert.is(tryLock(file), null, 'our own live process holds it');
  assert.throws(
    () => acquireLock(file, 'tick lock'),
    (e: Error) => e instanceof InternalError && e.message.includes(`live process ${process.pid}`),
  );
  held!.release();
  assert.not.ok(existsSync(file));
  const again = acquireLock(file);
  writeFileSync(file, `${process.pid}\ntoken=someone-else\n`);
  again.release();
  assert.ok(existsSync(file), 'a lock that is no longer ours is left alone');
  assert.is(readLockHolder(join(dir, 'none')), null);
});
lock('an empty lock file: waited on while young; its writer keeps it, a killed taker loses it once old', async () => {
  // What a taker between its create and its write shows, or one killed there: an empty file.
  const dir = makeTempDir();
  const file = join(dir, 'slice.lock');
  // A live taker that writes its pid 300 ms after creating the file: never robbed.
  const script = `const fs=require('fs');fs.writeFileSync(process.argv[1],'');setTimeout(()=>{fs.writeFileSync(process.argv[1],process.pid+'\\n');fs.writeFileSync(process.argv[1]+'.ok','')},300);setTimeout(()=>{},60000)`;
  const taker = spawn(process.execPath, ['-e', script, file], { stdio: 'ignore' });
  try {
    await waitFor(() => existsSync(file));
    assert.is(tryLock(file), null, "a lock being written is its writer's");
    assert.ok(existsSync(`${file}.ok`), 'tryLock waited for the write');
    assert.is(readLockHolder(file)?.pid, taker.pid);
  } finally {
    taker.kill('SIGKILL');
  }
  // A taker killed between its create and its write: the next one waits until the file is stale, then takes it.
  writeFileSync(file, '');
  const taken = tryLock(file);
  assert.ok(taken !== null, "an empty lock older than a write takes is a killed taker's");
  assert.is(readLockHolder(file)?.pid, process.pid);
  taken!.release();
});
lock("extra fields are written after the holder's own, in one write", () => {
  const file = join(makeTempDir(), 'leaf.pid');
  const held = tryLock(file, { run: 'r1', leaf: undefined });
  assert.ok(held !== null);
  const me = processIdentity();
  assert.is(
    readFileSync(file, 'utf8'),
    `${process.pid}\nstarttime=${me?.starttime}\nboot_id=${me?.bootId}\ntoken=${held!.token}\nrun=r1\n`,
  );
  held!.release();
});
lock('a live holder in another process keeps it; its SIGKILL frees it', async () => {
  const dir = makeTempDir();
  const file = join(dir, 'l.lock');
  const holder = spawn(process.execPath, [fixture('hold-lock.mjs'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const said = await new Promise<string>((resolve) => holder.stdout!.once('data', (b: Buffer) => resolve(String(b))));
  assert.is(said, 'held\n');
  assert.is(tryLock(file), null);
  holder.kill('SIGKILL');
  await new Promise((r) => holder.once('exit', r));
  const mine = tryLock(file);
  assert.ok(mine !== null, 'a dead holder does not hold the lock');
  assert.is(readLockHolder(file)?.pid, process.pid);
  mine!.release();
});
lock('a holder that exited, a reused pid, a garbage file: taken over', () => {
  const dir = makeTempDir();
  const file = join(dir, 'l.lock');
  const exited = spawnSync(process.execPath, [fixture('hold-lock.mjs'), file, 'exit'], { encoding: 'utf8' });
  assert.is(exited.stdout, 'held\n');
  assert.ok(tryLock(file) !== null, 'an exited holder');
  writeFileSync(file, `${process.pid}\nstarttime=1\nboot_id=${bootId()}\ntoken=t\n`);
  assert.ok(tryLock(file) !== null, 'our pid with another start time is a reused pid');
  writeFileSync(file, 'garbage');
  assert.ok(tryLock(file) !== null, 'garbage names no live holder');
});
lock('a permission problem is not mistaken for a free lock', () => {
  assert.throws(() => tryLock('/proc/leap-cannot-create.lock'), /ENOENT|EACCES|EPERM|EROFS/);
});
lock.run();

// NAME.pid and NAME.exit: their formats, and atomic replacement (no torn reads under a hammering writer).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  formatExitRecord,
  formatPidRecord,
  readExitFile,
  readPidFile,
  replaceFile,
  writeExitFile,
} from '../src/leaf-files.js';
import { fixture } from './helpers.js';

test.after(() => cleanupTempDirs());

test('formatExitRecord / readExitFile: the code alone on line 1, then key=value lines, read back the same', () => {
  const dir = makeTempDir();
  const file = join(dir, 'a.exit');
  const record = {
    code: 2,
    status: 'killed-timeout',
    signal: 'SIGKILL',
    run: 'abc',
    received: 'SIGTERM',
    leftovers: 3,
    escaped: 1,
    unkillable: '5,6',
    durationMs: 1200,
    error: 'x',
  };
  writeExitFile(file, record);
  const text = readFileSync(file, 'utf8');
  assert.is(text.split('\n')[0], '2');
  assert.match(text, '\nstatus=killed-timeout\n');
  assert.equal(readExitFile(file), { ...record, leafCode: undefined });
  assert.is(formatExitRecord({ code: 0, status: 'exited', leafCode: 0 }), '0\nstatus=exited\ncode=0\n');
  assert.is(readExitFile(join(dir, 'missing.exit')), null);
});

test("readExitFile: a bare code (the old scripts' format) is exited; garbage is code 2 status unreadable", () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'old.exit'), '1\n');
  assert.equal(readExitFile(join(dir, 'old.exit')), {
    code: 1,
    status: 'exited',
    leafCode: undefined,
    signal: undefined,
    run: undefined,
    received: undefined,
    leftovers: undefined,
    escaped: undefined,
    unkillable: undefined,
    error: undefined,
    durationMs: undefined,
  });
  writeFileSync(join(dir, 'bad.exit'), 'PASS\n');
  const bad = readExitFile(join(dir, 'bad.exit'));
  assert.is(bad?.code, 2);
  assert.is(bad?.status, 'unreadable');
  writeFileSync(join(dir, 'empty.exit'), '');
  assert.is(readExitFile(join(dir, 'empty.exit'))?.status, 'unreadable');
  writeFileSync(join(dir, 'odd.exit'), '3\nleftovers=many\n');
  assert.is(readExitFile(join(dir, 'odd.exit'))?.leftovers, undefined);
});

test('formatPidRecord / readPidFile: pid, start time, boot id, lock token, run and leaf', () => {
  const dir = makeTempDir();
  const file = join(dir, 'a.pid');
  writeFileSync(file, formatPidRecord({ pid: 42, starttime: '99', bootId: 'b', run: 'r', leaf: 43 }, 'tok'));
  assert.is(readFileSync(file, 'utf8'), '42\nstarttime=99\nboot_id=b\ntoken=tok\nrun=r\nleaf=43\n');
  assert.equal(readPidFile(file), { pid: 42, starttime: '99', bootId: 'b', run: 'r', leaf: 43 });
  writeFileSync(file, '');
  assert.is(readPidFile(file), null, 'an empty file is a supervisor still writing it');
  writeFileSync(file, 'nope\n');
  assert.ok(Number.isNaN(readPidFile(file)?.pid));
  assert.is(readPidFile(join(dir, 'missing.pid')), null);
});

test('replaceFile: a reader never sees an empty or partial file while another process rewrites it (F22)', async () => {
  const dir = makeTempDir();
  const file = join(dir, 'hammer.exit');
  replaceFile(file, '0\nstatus=exited\n');
  const writer = spawn(process.execPath, [fixture('rewrite-loop.js'), file, '1'], { stdio: 'ignore' });
  const ended = new Promise((r) => writer.on('exit', r));
  let reads = 0;
  let torn = 0;
  let running = true;
  void ended.then(() => {
    running = false;
  });
  while (running) {
    const text = readFileSync(file, 'utf8');
    reads++;
    if (!/^\d+\nstatus=exited\n(run=r{200}\n)?$/.test(text)) torn++;
    if (reads % 200 === 0) await new Promise((r) => setImmediate(r));
  }
  assert.ok(reads > 1000, `only ${reads} reads`);
  assert.is(torn, 0);
  assert.equal(readdirSync(dir), ['hammer.exit'], 'no temp file left behind');
});

test('replaceFile: a failed rename removes the temp file and throws', () => {
  const dir = makeTempDir();
  const target = join(dir, 'sub');
  writeFileSync(join(dir, 'x'), '');
  // Renaming a file over a non-empty directory fails (EISDIR/ENOTEMPTY).
  mkdirSync(join(target, 'inner'), { recursive: true });
  assert.throws(() => replaceFile(target, 'data'));
  assert.equal(readdirSync(dir).sort(), ['sub', 'x']);
});

test.run();

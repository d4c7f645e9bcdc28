// The view's reader: malformed lines named and skipped, a torn last line noted, a growing log read on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { LogTail, parseLogLine, parseLogText, readLogOnce } from '../src/read-log.js';
import { fixture } from './helpers.js';

// ---
const lines = suite('parseLogLine');

lines('a blank line is nothing; an event keeps every field; its time is parsed', () => {
  assert.is(parseLogLine('   ', 3), null);
  const r = parseLogLine(
    '{"ts":"2026-11-30T12:00:01.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":"a $(x)","extra":[1]}',
    4,
  );
  assert.ok(r !== null && 'event' in r);
  assert.equal(r, {
    line: 4,
    at: Date.parse('2026-11-30T12:00:01.000Z'),
    event: {
      ts: '2026-11-30T12:00:01.000Z',
      event: 'mark',
      issue: null,
      step: null,
      skill_commit: null,
      anchor: null,
      name: 'a $(x)',
      extra: [1],
    },
  });
});

lines('each way a line fails names the line, what was expected and what was found', () => {
  assert.equal(parseLogLine('nope', 2), { line: 2, message: 'expected one JSON event, got "nope"; skipped' });
  assert.equal(parseLogLine('[1]', 3), { line: 3, message: 'expected a JSON object, got "[1]"; skipped' });
  assert.equal(parseLogLine('{"ts":"2026-11-30T12:00:01.000Z"}', 4), {
    line: 4,
    message: 'expected a string field "event", found none; skipped',
  });
  assert.equal(parseLogLine('{"ts":"soon","event":"teleport"}', 5), {
    line: 5,
    message: 'expected "ts" to be an ISO 8601 time, got "soon"; skipped',
  });
  const long = parseLogLine(`x${'y'.repeat(100)}`, 6);
  assert.ok(long !== null && 'message' in long && long.message.endsWith('"...; skipped'));
});

lines.run();

// ---
const text = suite('parseLogText');

text('the malformed fixture: good events kept, each bad line reported with its number, the crash-torn line too', () => {
  const log = parseLogText(fixture('malformed.jsonl'));
  assert.equal(
    log.records.map((r) => r.line),
    [1, 8, 9, 11],
  );
  assert.equal(
    log.problems.map((p) => p.line),
    [2, 3, 4, 5, 6, 10],
  );
  assert.is(log.tornTail, false);
  assert.is(log.exists, true);
});

text('a last line without its end is torn, not a problem; a whole last line without newline counts', () => {
  const torn = parseLogText(fixture('torn-tail.jsonl'));
  assert.is(torn.records.length, 3);
  assert.equal(torn.problems, []);
  assert.is(torn.tornTail, true);
  const whole = parseLogText(
    '{"ts":"2026-11-30T12:00:01.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":"m"}',
  );
  assert.is(whole.records.length, 1);
  assert.is(whole.tornTail, false);
  assert.equal(parseLogText(''), { exists: true, events: 0, records: [], problems: [], tornTail: false });
});

text.run();

// ---
const tail = suite('LogTail');
tail.after(cleanupTempDirs);

tail('reads a log as it grows, a line at a time even when written in pieces, and rereads one that shrank', () => {
  const dir = makeTempDir();
  const file = join(dir, 'events.jsonl');
  const t = new LogTail(file);
  assert.equal(t.readMore().snapshot(), { exists: false, events: 0, records: [], problems: [], tornTail: false });
  writeFileSync(
    file,
    '{"ts":"2026-11-30T12:00:01.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":"é',
  );
  let s = t.readMore().snapshot();
  assert.equal([s.exists, s.records.length, s.tornTail], [true, 0, true]);
  appendFileSync(file, '🦀"}\nbad\n');
  s = t.readMore().snapshot();
  assert.equal(
    s.records.map((r) => [r.line, r.event.name]),
    [[1, 'é🦀']],
  );
  assert.equal(
    s.problems.map((p) => p.line),
    [2],
  );
  appendFileSync(
    file,
    '{"ts":"2026-11-30T12:00:02.000Z","event":"tick","issue":null,"step":null,"skill_commit":null,"action":"tick","title":null}\n',
  );
  s = t.readMore().readMore().snapshot(true);
  assert.equal(
    s.records.map((r) => r.line),
    [1, 3],
  );
  writeFileSync(
    file,
    '{"ts":"2026-11-30T12:00:03.000Z","event":"stop","issue":null,"step":null,"skill_commit":null,"mode":"now","action":"requested"}\n',
  );
  s = t.readMore().snapshot();
  assert.equal([s.records.length, s.records[0]?.event.event, s.problems.length], [1, 'stop', 0]);
  rmSync(file);
  assert.equal(t.readMore().snapshot(), { exists: false, events: 0, records: [], problems: [], tornTail: false });
});

tail(
  'a log longer than a read chunk: lines cut by a chunk end, UTF-8 cut inside a character, a line longer than a chunk',
  () => {
    const dir = makeTempDir();
    const file = join(dir, 'events.jsonl');
    // Names of one to four UTF-8 bytes a character, of lengths that put every kind of cut on some 64 KiB boundary.
    const names = Array.from(
      { length: 900 },
      (_, i) => `${['a', 'é', '€', '🦀'][i % 4]?.repeat(40 + (i % 97))} $(x) "q" ${i}`,
    );
    names[450] = `long ${'🦀'.repeat(40_000)}`; // 160 KB of text: more than two chunks on one line
    const lineOf = (name: string, i: number): string =>
      `{"ts":"2026-11-30T12:00:${String(i % 60).padStart(2, '0')}.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":${JSON.stringify(name)}}\n`;
    // The first name padded until the first chunk's end falls inside a character of an ordinary line.
    let text = '';
    for (let pad = 0; pad < 4 && text === ''; pad++) {
      names[0] = `${'x'.repeat(pad)}${names[0]?.replace(/^x*/, '')}`;
      const bytes = Buffer.from(names.map(lineOf).join(''));
      if ((bytes[64 * 1024] ?? 0) >> 6 === 0b10) text = bytes.toString();
    }
    assert.ok(text !== '', 'some padding cuts a character at the first chunk end');
    writeFileSync(
      file,
      `${text}{"ts":"2026-11-30T12:01:00.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":"tail é`,
    );
    const s = new LogTail(file).readMore().snapshot();
    assert.ok(Buffer.byteLength(text) > 4 * 64 * 1024);
    assert.equal(
      s.records.map((r) => r.event.name),
      names,
    );
    assert.equal(
      s.records.map((r) => r.line),
      names.map((_, i) => i + 1),
    );
    assert.equal([s.problems, s.tornTail], [[], true]);
    const seen: unknown[] = [];
    const once = readLogOnce(file, (r) => seen.push(r.event.name));
    assert.equal([once.events, once.tornTail, seen], [900, true, names]);
    appendFileSync(file, '🦀"}\n');
    const all = parseLogText(readFileSync(file, 'utf8'));
    assert.equal(readLogOnce(file, () => {}).events, all.records.length);
    assert.equal(all.records.at(-1)?.event.name, 'tail é🦀');
  },
);

tail('a path that is not a readable file is an error naming it, not an empty log', () => {
  const dir = makeTempDir();
  assert.throws(() => new LogTail(join(dir, 'x', '..')).readMore(), /EISDIR|illegal operation/);
});

tail.run();

// ---
const sink = suite('LogTail with a sink');
sink.after(cleanupTempDirs);

sink(
  'each event goes to the sink once and is not kept; a whole last line without newline counts at the final snapshot',
  () => {
    const dir = makeTempDir();
    const file = join(dir, 'events.jsonl');
    writeFileSync(
      file,
      `${fixture('malformed.jsonl')}{"ts":"2026-11-30T12:00:09.000Z","event":"mark","issue":null,"step":null,"skill_commit":null,"anchor":null,"name":"last"}`,
    );
    const seen: number[] = [];
    const t = new LogTail(file, (r) => seen.push(r.line));
    const before = t.readMore().snapshot();
    assert.equal([before.events, before.records, before.tornTail], [4, [], false]);
    const s = t.snapshot(true);
    assert.equal([s.events, s.records, s.problems.map((p) => p.line)], [5, [], [2, 3, 4, 5, 6, 10]]);
    assert.equal(seen, [1, 8, 9, 11, 12]);
    assert.is(t.snapshot(true).events, 5, 'the last line is taken once');
  },
);

sink.run();

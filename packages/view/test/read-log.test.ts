// The view's reader: malformed lines named and skipped, a torn last line noted, a growing log read on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { LogTail, parseLogLine, parseLogText } from '../src/read-log.js';
import { fixture } from './helpers.js';

// ---
const lines = suite('parseLogLine');

lines('a blank line is nothing; an event keeps every field; its time is parsed', () => {
  assert.is(parseLogLine('   ', 3), null);
  const r = parseLogLine('{"ts":"2026-11-30T12:00:01.000Z","event":"mark","name":"a $(x)","extra":[1]}', 4);
  assert.ok(r !== null && 'event' in r);
  assert.equal(r, { line: 4, at: Date.parse('2026-11-30T12:00:01.000Z'), event: { ts: '2026-11-30T12:00:01.000Z', event: 'mark', name: 'a $(x)', extra: [1] } });
});

lines('each way a line fails names the line, what was expected and what was found', () => {
  assert.equal(parseLogLine('nope', 2), { line: 2, message: 'expected one JSON event, got "nope"; skipped' });
  assert.equal(parseLogLine('[1]', 3), { line: 3, message: 'expected a JSON object, got "[1]"; skipped' });
  assert.equal(parseLogLine('{"ts":"2026-11-30T12:00:01.000Z"}', 4), { line: 4, message: 'expected a string field "event", found none; skipped' });
  assert.equal(parseLogLine('{"ts":"soon","event":"mark"}', 5), { line: 5, message: 'expected "ts" to be an ISO 8601 time, got "soon"; skipped' });
  const long = parseLogLine(`x${'y'.repeat(100)}`, 6);
  assert.ok(long !== null && 'message' in long && long.message.endsWith('"...; skipped'));
});

lines.run();

// ---
const text = suite('parseLogText');

text('the malformed fixture: good events kept, each bad line reported with its number, the crash-torn line too', () => {
  const log = parseLogText(fixture('malformed.jsonl'));
  assert.equal(log.records.map((r) => r.line), [1, 6, 8, 9, 11]);
  assert.equal(log.problems.map((p) => p.line), [2, 3, 4, 5, 10]);
  assert.is(log.tornTail, false);
  assert.is(log.exists, true);
});

text('a last line without its end is torn, not a problem; a whole last line without newline counts', () => {
  const torn = parseLogText(fixture('torn-tail.jsonl'));
  assert.is(torn.records.length, 3);
  assert.equal(torn.problems, []);
  assert.is(torn.tornTail, true);
  const whole = parseLogText('{"ts":"2026-11-30T12:00:01.000Z","event":"mark"}');
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
  writeFileSync(file, '{"ts":"2026-11-30T12:00:01.000Z","event":"mark","name":"é');
  let s = t.readMore().snapshot();
  assert.equal([s.exists, s.records.length, s.tornTail], [true, 0, true]);
  appendFileSync(file, '🦀"}\nbad\n');
  s = t.readMore().snapshot();
  assert.equal(s.records.map((r) => [r.line, r.event.name]), [[1, 'é🦀']]);
  assert.equal(s.problems.map((p) => p.line), [2]);
  appendFileSync(file, '{"ts":"2026-11-30T12:00:02.000Z","event":"tick","action":"tick"}\n');
  s = t.readMore().readMore().snapshot(true);
  assert.equal(s.records.map((r) => r.line), [1, 3]);
  writeFileSync(file, '{"ts":"2026-11-30T12:00:03.000Z","event":"stop","action":"requested"}\n');
  s = t.readMore().snapshot();
  assert.equal([s.records.length, s.records[0]?.event.event, s.problems.length], [1, 'stop', 0]);
  rmSync(file);
  assert.equal(t.readMore().snapshot(), { exists: false, events: 0, records: [], problems: [], tornTail: false });
});

tail('a path that is not a readable file is an error naming it, not an empty log', () => {
  const dir = makeTempDir();
  assert.throws(() => new LogTail(join(dir, 'x', '..')).readMore(), /EISDIR|illegal operation/);
});

tail.run();

// ---
const sink = suite('LogTail with a sink');
sink.after(cleanupTempDirs);

sink('each event goes to the sink once and is not kept; a whole last line without newline counts at the final snapshot', () => {
  const dir = makeTempDir();
  const file = join(dir, 'events.jsonl');
  writeFileSync(file, `${fixture('malformed.jsonl')}{"ts":"2026-11-30T12:00:09.000Z","event":"mark","name":"last"}`);
  const seen: number[] = [];
  const t = new LogTail(file, (r) => seen.push(r.line));
  const before = t.readMore().snapshot();
  assert.equal([before.events, before.records, before.tornTail], [5, [], false]);
  const s = t.snapshot(true);
  assert.equal([s.events, s.records, s.problems.map((p) => p.line)], [6, [], [2, 3, 4, 5, 10]]);
  assert.equal(seen, [1, 6, 8, 9, 11, 12]);
  assert.is(t.snapshot(true).events, 6, 'the last line is taken once');
});

sink.run();

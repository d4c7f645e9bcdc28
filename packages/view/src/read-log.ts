// Each line checked by core's event reader: a bad line is a problem with its number; a torn last line is only noted.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseEventLine } from '@leap/core';

const CHUNK_BYTES = 64 * 1024;

/** A valid event, or one of a kind core does not know (its `ts` checked); its 1-based line; its time in epoch ms. */
export type LogRecord = { line: number; at: number; event: { [field: string]: unknown; ts: string; event: string } };
export type LogProblem = { line: number; message: string };

export function parseLogLine(raw: string, line: number): LogRecord | LogProblem | null {
  if (raw.charCodeAt(0) !== 0x7b && raw.trim() === '') return null;
  const parsed = parseEventLine(raw);
  if ('problem' in parsed) return { line, message: `${parsed.problem}; skipped` };
  const event = ('event' in parsed ? parsed.event : parsed.other) as LogRecord['event'];
  const at = typeof event.ts === 'string' ? Date.parse(event.ts) : Number.NaN;
  if (Number.isNaN(at))
    return { line, message: `expected "ts" to be an ISO 8601 time, got ${JSON.stringify(event.ts ?? null)}; skipped` };
  return { line, at, event };
}

export const readLogOnce = (file: string, sink: (record: LogRecord) => void) =>
  new LogTail(file, sink).readMore().snapshot(true);

export const parseLogText = (text: string) => new LogTail('').push(text).snapshot(true);

/** `readMore()` reads from a byte offset what was appended; a last line without its newline waits. */
export class LogTail {
  private offset = 0;
  private line = 0;
  private pending = '';
  private exists = false;
  private records: LogRecord[] = [];
  private problems: LogProblem[] = [];
  private count = 0;

  constructor(
    readonly file: string,
    private readonly sink?: (record: LogRecord) => void,
  ) {}

  /** Read what the file gained; a file that shrank (replaced or cut) is read again from its start. */
  readMore(): this {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (this.exists) this.reset();
      return this;
    }
    try {
      this.exists = true;
      const size = fstatSync(fd).size;
      if (size < this.offset) this.reset(true);
      if (size === this.offset) return this;
      // Whole lines a chunk at a time: a long log is never in memory twice; a cut line is carried as bytes.
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.offset));
      let carry: Buffer | null = null;
      let at = this.offset;
      while (at < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
        if (n === 0) break;
        at += n;
        const end = chunk.lastIndexOf(0x0a, n - 1) + 1;
        // Buffer.concat copies: the chunk is read into again.
        const whole = Buffer.concat([carry ?? Buffer.alloc(0), chunk.subarray(0, end === 0 ? n : end)]);
        if (end === 0) {
          carry = whole;
          continue;
        }
        this.push(whole.toString('utf8'));
        this.offset = at - (n - end);
        carry = end === n ? null : Buffer.from(chunk.subarray(end, n));
      }
      this.pending = carry === null ? '' : carry.toString('utf8');
      return this;
    } finally {
      closeSync(fd);
    }
  }

  /** Take text of whole lines (and, at the end of a whole text, a last line without newline). */
  push(text: string): this {
    this.exists = true;
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      this.take(text.slice(start, end));
      start = end + 1;
    }
    this.pending = text.slice(start);
    return this;
  }

  /** What was read so far; a pending last line counts when it is already a whole event. `events`: how many were
   * read (with a sink, `records` stays empty); `tornTail`: the last line has no newline yet and is not an event. */
  snapshot(final = false) {
    const parsed = this.pending.trim() === '' ? null : parseLogLine(this.pending, this.line + 1);
    const whole = parsed !== null && 'event' in parsed ? parsed : null;
    if (whole !== null && this.sink !== undefined && final) {
      this.sink(whole);
      this.count++;
      this.pending = '';
    }
    const extra = whole !== null && this.sink === undefined ? [whole] : [];
    const records = final || extra.length > 0 ? [...this.records, ...extra] : this.records;
    const problems = final ? [...this.problems] : this.problems;
    const tornTail = parsed !== null && whole === null;
    return { exists: this.exists, events: this.count + extra.length, records, problems, tornTail };
  }

  private take(raw: string): void {
    const parsed = parseLogLine(raw, ++this.line);
    if (parsed === null) return;
    if (!('event' in parsed)) return void this.problems.push(parsed);
    this.count++;
    if (this.sink === undefined) this.records.push(parsed);
    else this.sink(parsed);
  }

  private reset(exists = false): void {
    Object.assign(this, { offset: 0, line: 0, pending: '', exists, records: [], problems: [], count: 0 });
  }
}

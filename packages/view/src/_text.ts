// Text from events (titles, reasons, agents' words) is data, never markup or terminal control; and the commands' args.
import { type CliOption, type CliValues, parseCli, type SubcommandIo, UsageError } from '@leap/core';
import { pushTo } from './_fold-leaves.js';

/** A view command's options, or null once `--help` printed `usage`; a positional is a usage error. */
export function viewOptions<T extends Record<string, CliOption>>(
  argv: string[],
  options: T,
  usage: string,
  io: SubcommandIo,
): CliValues<T> | null {
  const { values, positionals } = parseCli(argv, options, usage);
  if ((values as { help?: boolean }).help === true) {
    io.stdout(`${usage}\n`);
    return null;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n${usage}`);
  return values;
}

/** Run `body` with a signal that aborts on INT or TERM, listened for only meanwhile. */
export async function untilSignal(body: (signal: AbortSignal) => Promise<void>): Promise<number> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await body(controller.signal);
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  return 0;
}

export const RECEIPT_TEXT: Record<string, string> = { '-1': '-1 refused', '0': '0 held', '1': '1 passed' };

/** A slice's balls by wave (`?`: none known), the waves in order of first appearance. */
export function byWave<T extends { wave: number | null }>(balls: readonly T[]): Map<string, T[]> {
  const waves = new Map<string, T[]>();
  for (const ball of balls) pushTo(waves, ball.wave === null ? '?' : String(ball.wave), ball);
  return waves;
}

/** `ms` as people read a leaf's time: `850ms`, `12.3s`, `4m05s`, `2h03m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A token count with thousands separators; null is `?` (the CLI did not say). */
export function formatTokens(n: number | null): string {
  if (n === null) return '?';
  const whole = Math.round(n);
  // Below a million, the common case, by arithmetic: a report formats thousands of these.
  if (whole >= 0 && whole < 1_000_000) {
    if (whole < 1000) return String(whole);
    const low = whole % 1000;
    return `${(whole - low) / 1000},${low < 10 ? '00' : low < 100 ? '0' : ''}${low}`;
  }
  const digits = String(whole);
  if (digits.length <= 3) return digits;
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/** Dollars: four decimals below a cent, two above; null is `?`. */
export function formatUsd(n: number | null): string {
  if (n === null) return '?';
  return n !== 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : String(i)));

/** `HH:MM:SS` of an epoch time, in UTC (the event log's own zone): the time of day of `isoTimestamp`. */
export function clockTime(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  // The same arithmetic as core's isoTimestamp, without the date: a report shows thousands of these.
  const dayMs = ms - Math.floor(ms / 86_400_000) * 86_400_000;
  const h = Math.floor(dayMs / 3_600_000);
  const m = Math.floor((dayMs % 3_600_000) / 60_000);
  const s = Math.floor((dayMs % 60_000) / 1000);
  return `${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[s]}`;
}

/** Cut `text` to `width` code points, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  // No more UTF-16 units than `width`: no more code points either, so nothing to cut (and no array to build).
  if (text.length <= width) return text;
  const points = Array.from(text);
  if (points.length <= width) return text;
  return `${points.slice(0, Math.max(0, width - 1)).join('')}…`;
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or a quoted attribute: `<script>` in a title shows as text. */
export function escapeHtml(text: string): string {
  // Most text has nothing to escape and what has repeats (a step's title on each leaf): test first, memoize.
  if (!NEEDS_ESCAPE.test(text)) return text;
  let escaped = escapedBefore.get(text);
  if (escaped === undefined) {
    escaped = text.replace(/[&<>"']/g, (c) => HTML[c] ?? c);
    if (escapedBefore.size < 10_000) escapedBefore.set(text, escaped);
  }
  return escaped;
}

const NEEDS_ESCAPE = /[&<>"']/;
const escapedBefore = new Map<string, string>();

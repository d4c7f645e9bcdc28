// Text from events (titles, reasons, agents' words) is data, never markup or terminal control; and the commands' args.
import { type CliOption, type CliValues, isoTimestamp, parseCli, type SubcommandIo, UsageError } from '@leap/core';
import { pushTo } from './_fold-leaves.js';

const DIR = { dir: { type: 'string' } } as const;
const JSON_HELP = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** A view command's options (`--dir`, its `own`, `--json`, `--help`), or null once `--help` printed `usage`. */
export function viewOptions<T extends Record<string, CliOption>>(
  argv: string[],
  own: T,
  usage: string,
  io: SubcommandIo,
): CliValues<typeof DIR & T & typeof JSON_HELP> | null {
  const { values, positionals } = parseCli(argv, { ...DIR, ...own, ...JSON_HELP }, usage);
  if (values.help === true) {
    io.stdout(`${usage}\n`);
    return null;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n${usage}`);
  return values;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Run `body` with a signal that aborts on INT or TERM, listened for only meanwhile. */
export async function untilSignal(body: (signal: AbortSignal) => Promise<void>): Promise<number> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  for (const signal of SIGNALS) process.once(signal, stop);
  try {
    await body(controller.signal);
  } finally {
    for (const signal of SIGNALS) process.removeListener(signal, stop);
  }
  return 0;
}

export const TORN = 'the last line has no end yet (being written, or torn by a crash); not counted';

/** A remote round's state in words: `worker` and `phase` already made safe where they go; `since` its time. */
export function remoteWords(state: string, worker: string, phase: string, since: string): string {
  if (state === 'queued') return `queued${since}: no worker has taken it`;
  if (state === 'building') return `building on worker ${worker}${phase}${since}`;
  return `returned by worker ${worker}, the engine checking it`;
}

export const RECEIPT_TEXT: Record<string, string> = { '-1': '-1 refused', '0': '0 held', '1': '1 passed' };

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

export const formatTokens = (n: number | null): string =>
  n === null ? '?' : String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export const formatUsd = (n: number | null): string =>
  n === null ? '?' : `$${n.toFixed(n !== 0 && n < 0.01 ? 4 : 2)}`;

export const clockTime = (ms: number): string =>
  Number.isFinite(ms) ? isoTimestamp(Math.floor(ms)).slice(-13, -5) : '?';

/** Cut `text` to `width` code points, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  const points = Array.from(text);
  return points.length <= width ? text : `${points.slice(0, Math.max(0, width - 1)).join('')}…`;
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML[c]!);

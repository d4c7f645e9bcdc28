// Durations as the supervisor's environment gives them: `90`, `1.5`, `30s`, `2m`, `1h`, `1d`.
import { UsageError, showValue } from './errors.js';

const UNIT_MS: Record<string, number> = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds; 0 means no limit, and a tiny positive value is at least 1 ms. */
export function parseDuration(name: string, value: string): number {
  const match = /^\s*(\+?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)([smhd]?)\s*$/.exec(value);
  if (match === null)
    throw new UsageError(
      `Expected ${name} to be a non-negative duration ` +
        `(seconds, or a number with suffix s, m, h or d), got ${showValue(value)}`,
    );
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 1000);
  // `1e-10000` reads as 0 but is positive: it must limit, never disable.
  if (ms === 0) return /[1-9]/.test((match[1] ?? '').split(/[eE]/)[0] ?? '') ? 1 : 0;
  if (!Number.isFinite(ms)) return Number.MAX_VALUE;
  return Math.max(1, Math.ceil(ms));
}

export const formatSeconds = (ms: number): string => (ms === 0 ? '0' : `${Number((ms / 1000).toFixed(3))}s`);

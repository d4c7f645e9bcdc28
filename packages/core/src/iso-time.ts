// Not Date#toISOString: its first call loads the local time zone, about 1 ms of every event writer's start-up.

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly as Date#toISOString writes years 0 to 9999. */
export function isoTimestamp(ms: number = Date.now()): string {
  const days = Math.floor(ms / 86_400_000);
  const dayMs = ms - days * 86_400_000;
  // Civil date from days since 1970-01-01 (proleptic Gregorian; Howard Hinnant's days_from_civil, inverted).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(dayMs / 3_600_000);
  const m = Math.floor((dayMs % 3_600_000) / 60_000);
  const s = Math.floor((dayMs % 60_000) / 1000);
  const time = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(dayMs % 1000, 3)}`;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${time}Z`;
}

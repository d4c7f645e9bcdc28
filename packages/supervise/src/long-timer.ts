// Monotonic timers of any duration (Node fires one past 2^31-1 ms at once), on hrtime: `performance` loads perf_hooks.
const MAX_CHUNK_MS = 2_147_483_647;

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Call `fn` once after `ms` (any finite or huge value) of monotonic time; returns a cancel function. */
export function setLongTimeout(fn: () => void, ms: number, unref = false): () => void {
  const end = nowMs() + ms;
  let timer: NodeJS.Timeout | undefined;
  // Never calls `fn` synchronously, even for 0: callers may still be setting up.
  const arm = (): void => {
    timer = setTimeout(tick, Math.min(Math.max(0, Math.ceil(end - nowMs())), MAX_CHUNK_MS));
    if (unref) timer.unref();
  };
  const tick = () => {
    if (end - nowMs() > 0) return arm();
    timer = undefined;
    fn();
  };
  arm();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

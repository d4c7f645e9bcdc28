// A test hook for crash safety: with LEAP_LEDGER_KILL_AT=k in its environment, a ledger command SIGKILLs
// itself at the k-th kill point it reaches (or at the point named k), so a test can stop a transaction at
// each of its steps in turn. Unset (always, outside tests), a kill point is one comparison.

let reached = 0;

/** Mark a point of a transaction; `name` documents where it is (and shows in LEAP_LEDGER_KILL_TRACE). */
export function killPoint(name: string): void {
  const at = process.env.LEAP_LEDGER_KILL_AT;
  if (at === undefined || at === '') return;
  reached++;
  if (process.env.LEAP_LEDGER_KILL_TRACE === '1') process.stderr.write(`kill point ${reached}: ${name}\n`);
  if (reached !== Number(at) && at !== name) return;
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself takes effect before the kill call returns; never run past it regardless.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

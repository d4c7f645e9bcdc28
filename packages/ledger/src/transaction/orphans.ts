// The processes a killed transaction left behind. Every process a transaction starts (git, hooks, and
// whatever they start) inherits LEAP_LEDGER_TXN=<token>; if the transaction is SIGKILLed while one runs,
// that process goes on (a `git update-ref` may still move HEAD), so recovery waits for all of them first.
// Linux: they are found in /proc/PID/environ; elsewhere none are found.
import { readdirSync } from 'node:fs';
import { isProcessAlive, readProcBytes } from '@leap/core';

/** Pids of live processes whose environment holds LEAP_LEDGER_TXN=token (this process excluded). */
export function findTransactionProcesses(token: string): number[] {
  const needle = Buffer.from(`LEAP_LEDGER_TXN=${token}\0`);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    // A view of core's shared buffer: searched before isProcessAlive reads the next /proc file into it.
    const environ = readProcBytes(`/proc/${entry}/environ`);
    if (environ?.includes(needle) && isProcessAlive({ pid })) found.push(pid);
  }
  return found;
}

/** Wait until no process of the transaction runs; returns the pids still running after `timeoutMs`. */
export async function waitForTransactionProcesses(token: string, timeoutMs: number): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const live = findTransactionProcesses(token);
    if (live.length === 0 || Date.now() >= end) return live;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

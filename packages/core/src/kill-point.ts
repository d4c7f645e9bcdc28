import { writeFd } from './cli.js';

const reached = new Map<string, number>();

/** Tests only: with PREFIX_KILL_AT=k, SIGKILL this process at its k-th kill point (or the one named k). */
export function killPoint(prefix: string, name: string): void {
  const at = process.env[`${prefix}_KILL_AT`];
  if (at === undefined || at === '') return;
  const n = (reached.get(prefix) ?? 0) + 1;
  reached.set(prefix, n);
  if (process.env[`${prefix}_KILL_TRACE`] === '1') writeFd(2, `kill point ${n}: ${name}\n`);
  if (n !== Number(at) && at !== name) return;
  process.kill(process.pid, 'SIGKILL');
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

// Node has no PR_SET_PDEATHSIG: a guard in its own session reads a pipe the kernel closes however the worker ends,
// then kills every process whose environment carries the worker's marker (a SIGKILLed worker's leaves, issue 26 §2).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

// The guard, as `node -e`: argv[1] the marker's name. It never carries the marker itself.
const GUARD = `
const fs = require('node:fs');
const key = process.argv[1];
const marked = () => {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d) || Number(d) === process.pid) continue;
    let env;
    try { env = fs.readFileSync('/proc/' + d + '/environ'); } catch { continue; }
    if (env.indexOf(key + '=') === 0 || env.indexOf('\\0' + key + '=') >= 0) out.push(Number(d));
  }
  return out;
};
const send = (pids, signal) => { for (const pid of pids) { try { process.kill(pid, signal); } catch {} } };
process.stdin.on('data', () => {});
process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  const first = marked();
  if (first.length === 0) process.exit(0);
  send(first, 'SIGTERM');
  send(first, 'SIGCONT');
  let sweeps = 0;
  const sweep = () => {
    const left = marked();
    if (left.length === 0 || sweeps++ > 100) process.exit(0);
    send(left, 'SIGKILL');
    setTimeout(sweep, 50);
  };
  setTimeout(sweep, 500);
});
`;

export interface OrphanGuard {
  /** The marker's variable name (LEAP_WORKER_GUARD_<random>). */
  readonly key: string;
  /** `env` with the marker, for a round's leaves and proofs. */
  mark(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** The worker is done: its pipe closed, the guard ends what is still marked (nothing, after a clean close) and exits. */
  stop(): void;
}

/** Start the guard (Linux: it reads /proc). Never keeps the worker's process alive. */
export function startOrphanGuard(): OrphanGuard {
  const key = `LEAP_WORKER_GUARD_${randomBytes(8).toString('hex')}`;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['-e', GUARD, key], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env });
  child.on('error', () => {});
  child.unref();
  const pipe = child.stdin;
  pipe?.on('error', () => {});
  // An open pipe must not keep the worker alive: only its end (the worker's) matters.
  (pipe as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    key,
    mark: (e) => ({ ...e, [key]: '1' }),
    stop: () => pipe?.end(),
  };
}

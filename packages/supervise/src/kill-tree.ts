// The kill sequence: TERM and CONT to the tree, a grace period, then SIGKILL sweeps until nothing is left.
import { readProc } from './proc-scan.js';
import type { LeafTree, TreeMembers } from './leaf-tree.js';
import { nowMs, sleep } from './long-timer.js';
import { orElse } from '@leap/core';

export interface KillOutcome {
  leftovers: number;
  /** How many of them were outside the leaf's session (setsid escapees that were found). */
  escaped: number;
  /** Processes still alive when the sweep gave up (a process in uninterruptible sleep). */
  unkillable: number[];
  escalated: boolean;
}

export interface Leader {
  readonly pid: number;
  /** bwrap takes SIGKILL only (a polite signal ends its sandbox at once); TERM and CONT go to each pid inside. */
  readonly onlyKill?: boolean;
  exited(): boolean;
  kill(signal: NodeJS.Signals): void;
}

/** `graceMs` from TERM to the first SIGKILL sweep (0: at once); `capMs` of sweeps before survivors are unkillable. */
export type KillOptions = { graceMs: number; capMs?: number };

// False on ESRCH (it died meanwhile) or EPERM (not ours to signal: reported as unkillable if it stays).
const send = (target: number, signal: NodeJS.Signals): boolean => orElse(() => process.kill(target, signal), false);

/** Signal every live process of the tree: whole groups where a member leads or holds one, then each process. */
export function signalTree(found: TreeMembers, leader: Leader, signal: NodeJS.Signals): void {
  const spare = leader.onlyKill === true && signal !== 'SIGKILL';
  if (!leader.exited() && !spare) leader.kill(signal);
  const groups = new Set<number>();
  // A group id cannot be reused while the group has a member, and we just saw one in each of these.
  for (const p of found.members) if (!spare || p.pgid !== leader.pid) groups.add(p.pgid);
  const escapedPids = new Set(found.escaped.map((p) => p.pid));
  for (const p of found.escaped) if (escapedPids.has(p.pgid)) groups.add(p.pgid);
  for (const pgid of groups) if (pgid > 1 && pgid !== process.pid) send(-pgid, signal);
  for (const p of [...found.members, ...found.escaped]) {
    if (p.pid !== leader.pid && readProc(p.pid)?.starttime === p.starttime) send(p.pid, signal);
  }
}

/** TERM and CONT, `graceMs`, then SIGKILL sweeps; the leader only through `leader` (its reaped pid may be reused). */
export async function killTree(tree: LeafTree, leader: Leader, options: KillOptions): Promise<KillOutcome> {
  const interval = 50; // ms between two looks at /proc
  const seen = new Map<string, boolean>();
  const gone = (found: TreeMembers): boolean =>
    found.members.length === 0 && found.escaped.length === 0 && leader.exited();
  // A failed look at /proc (EMFILE, say) must not end the sequence: keep what was last seen and look again.
  let found: TreeMembers = { members: [], escaped: [] };
  const look = (): void => {
    found = orElse(() => tree.live(), found);
    for (const p of found.members) if (p.pid !== leader.pid) seen.set(`${p.pid}:${p.starttime}`, false);
    for (const p of found.escaped) seen.set(`${p.pid}:${p.starttime}`, true);
  };

  look();
  let escalated = false;
  if (options.graceMs > 0 && !gone(found)) {
    signalTree(found, leader, 'SIGTERM');
    signalTree(found, leader, 'SIGCONT');
    const end = nowMs() + options.graceMs;
    for (let left = options.graceMs; left > 0; left = end - nowMs()) {
      await sleep(Math.min(interval, Math.ceil(left)));
      look();
      if (gone(found)) break;
    }
  }
  const capEnd = nowMs() + (options.capMs ?? 5000);
  let unkillable: number[] = [];
  while (!gone(found)) {
    const alive = found.members.length + found.escaped.length;
    // Nothing alive but the leader not yet reaped (a zombie until Node handles SIGCHLD): just wait.
    if (alive > 0) {
      escalated = true;
      signalTree(found, leader, 'SIGKILL');
    }
    if (nowMs() > capEnd) {
      unkillable = [...found.members, ...found.escaped].map((p) => p.pid);
      break;
    }
    await sleep(alive === 0 ? 5 : Math.max(1, interval / 5));
    look();
  }
  const escaped = [...seen.values()].filter(Boolean).length;
  return { leftovers: seen.size, escaped, unkillable, escalated };
}

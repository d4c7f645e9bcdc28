// A leaf's process tree (its session, descendants that left it, those with its marker) and the kill sequence.
import { orElse } from '@leap/core';
import { nowMs, sleep } from './long-timer.js';
import { bytesWritten, environKey, isGone, readForkCount, readProc, scanProcessesSince } from './proc-scan.js';
import type { ProcInfo } from './proc-scan.js';

// A process between setsid and exec (a daemon starting) reads an empty environment for a moment: retry 1 ms apart.
const EMPTY_ENV_RETRIES = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

type TreeMembers = { members: ProcInfo[]; escaped: ProcInfo[] };

/** Members share the leaf's session; escapees are found by parentage (`observe`'s snapshots) and by the marker. */
export class LeafTree {
  private readonly known = new Map<number, number>();
  /** Taken right after the leader started: every process of the tree is numbered after the leader. */
  private readonly forksAtStart = readForkCount();

  constructor(
    readonly sid: number,
    readonly leaderStart: number,
    readonly marker: string,
  ) {}

  scan(): ProcInfo[] {
    return scanProcessesSince(this.sid, this.forksAtStart);
  }

  private isMember(p: ProcInfo): boolean {
    return p.sid === this.sid && p.starttime >= this.leaderStart && p.pid !== process.pid;
  }

  private isKnown(p: ProcInfo): boolean {
    return this.known.get(p.pid) === p.starttime;
  }

  /** Record, from a snapshot, every descendant outside the session (children of members or of known ones). */
  observe(procs: readonly ProcInfo[]): void {
    const children = new Map<number, ProcInfo[]>();
    for (const p of procs) children.get(p.ppid)?.push(p) ?? children.set(p.ppid, [p]);
    const queue = procs.filter((p) => this.isMember(p) || this.isKnown(p));
    for (let i = 0; i < queue.length; i++) {
      const parent = queue[i] as ProcInfo;
      for (const child of children.get(parent.pid) ?? []) {
        if (child.starttime < this.leaderStart || child.pid === process.pid) continue;
        if (this.isMember(child) || this.isKnown(child)) continue;
        this.known.set(child.pid, child.starttime);
        queue.push(child);
      }
    }
  }

  /** The tree's live processes (zombies, dying ones count as gone); `withMarker` also reads newer ones' environment. */
  live(procs: readonly ProcInfo[] = this.scan(), withMarker = true): TreeMembers {
    this.observe(procs);
    const members: ProcInfo[] = [];
    const escaped: ProcInfo[] = [];
    for (const p of procs) {
      if (isGone(p)) continue;
      if (this.isMember(p)) members.push(p);
      else if (this.isKnown(p)) escaped.push(p);
      else if (withMarker && p.starttime >= this.leaderStart && p.pid !== process.pid && this.carriesMarker(p.pid)) {
        this.known.set(p.pid, p.starttime);
        escaped.push(p);
      }
    }
    return { members, escaped };
  }

  private carriesMarker(pid: number): boolean {
    for (let attempt = 0; ; attempt++) {
      const found = environKey(pid, this.marker);
      if (found !== null || attempt === EMPTY_ENV_RETRIES) return found === true;
      Atomics.wait(pause, 0, 0, 1);
    }
  }

  /** The idle detector's measure: its live processes' CPU time (clock ticks) and bytes written, to anything. */
  progress(procs: readonly ProcInfo[] = this.scan()): string {
    const { members, escaped } = this.live(procs, false);
    const all = [...members, ...escaped];
    const sum = (of: (p: ProcInfo) => number): number => all.reduce((total, p) => total + of(p), 0);
    return `${sum((p) => p.cpu)}:${sum((p) => bytesWritten(p.pid))}:${all.length}`;
  }
}

export type KillOutcome = Awaited<ReturnType<typeof killTree>>;

export interface Leader {
  readonly pid: number;
  /** bwrap takes SIGKILL only (a polite signal ends its sandbox at once); TERM and CONT go to each pid inside. */
  readonly onlyKill?: boolean;
  exited(): boolean;
  kill(signal: NodeJS.Signals): void;
}

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

/** TERM and CONT, `graceMs` (0: none), SIGKILL sweeps for `capMs`; the leader only via `leader` (its pid may recur). */
export async function killTree(tree: LeafTree, leader: Leader, options: { graceMs: number; capMs?: number }) {
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
  // `escaped`: how many were outside the leaf's session; `unkillable`: alive when the sweeps gave up (state D).
  const escaped = [...seen.values()].filter(Boolean).length;
  return { leftovers: seen.size, escaped, unkillable, escalated };
}

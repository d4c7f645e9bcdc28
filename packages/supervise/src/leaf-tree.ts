// A leaf's process tree: its session, the descendants that left the session, and those carrying its marker.
import { bytesWritten, environKey, isGone, readForkCount, scanProcessesSince, type ProcInfo } from './proc-scan.js';

// A process between setsid and exec (a daemon starting) reads an empty environment for a moment: retry 1 ms apart.
const EMPTY_ENV_RETRIES = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

export type TreeMembers = { members: ProcInfo[]; escaped: ProcInfo[] };

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

// Changes a leaf did not make (section 9): kept apart if sandboxed (writer-apart.md), else ctime in a span none ran.
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { orElse, readProcBytes } from '@leap/core';
import type { ApartEnd } from '@leap/supervise';
import { type PhaseRun, stagedChanges } from './develop-leaf.js';
import { folderNames } from './status.js';

/** When a leaf ran, and the spans inside it in which none of its processes ran (ms since the epoch). */
export interface LeafActivity {
  started: number;
  ended: number | null;
  quiet: [number, number][];
}

// How often the leaf's threads are looked at, and how often a quiet span that grows is written down.
const TICK_MS = 100;
const WRITE_MS = 250;
// An inode change time lags the clock by up to one kernel tick (the coarse clock): the slack a span is narrowed by.
const SLACK_MS = 20;

export function apartCopy(stateDir: string, leaf: string): string {
  return join(stateDir, `${leaf}.apart`);
}

export function activityFile(stateDir: string, leaf: string): string {
  return join(stateDir, `${leaf}.activity`);
}

/** Follow this process's descendants (the leaf it supervises) until `stop`, which returns what was seen. */
export function watchLeafActivity(file: string): { stop(): LeafActivity } {
  const activity: LeafActivity = { started: Date.now(), ended: null, quiet: [] };
  let last: { threads: string; running: boolean; readEnd: number } | null = null;
  let span: [number, number] | null = null;
  let written = 0;
  const save = (force: boolean) => {
    if (!force && Date.now() - written < WRITE_MS) return;
    written = Date.now();
    orElse(() => writeFileSync(file, `${JSON.stringify(activity)}\n`), null);
  };
  save(true);
  const tick = () => {
    const readStart = Date.now();
    const now = { ...readThreads(process.pid), readEnd: Date.now() };
    if (last !== null && !last.running && !now.running && last.threads === now.threads) {
      if (span === null) {
        span = [last.readEnd, readStart];
        activity.quiet.push(span);
        save(true);
      } else {
        span[1] = readStart;
        save(false);
      }
    } else {
      span = null;
    }
    last = now;
  };
  tick();
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      activity.ended = Date.now();
      save(true);
      return activity;
    },
  };
}

/** The activity written in `file`, else the leaf's life alone: from `started` until its exit file was written. */
export function readLeafActivity(file: string, started: number, exitFile: string): LeafActivity {
  const ended = statSync(exitFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
  const kept = orElse(() => JSON.parse(readFileSync(file, 'utf8')) as LeafActivity | null, null);
  if (typeof kept?.started === 'number' && Array.isArray(kept.quiet)) return { ...kept, ended: kept.ended ?? ended };
  return { started, ended, quiet: [] };
}

type Changed = { path: string; deleted: boolean };

/** Changed paths whose ctime (a deletion's: its nearest folder's) is outside the leaf's life or in a quiet span. */
export function notTheLeafs(root: string, changed: readonly Changed[], activity: LeafActivity) {
  const ended = activity.ended ?? Number.POSITIVE_INFINITY;
  return changed
    .filter(({ path, deleted }) => {
      const at = changeTime(root, path, deleted);
      if (at === null) return false;
      // Readings are whole ms, taken before or after the fact: a change time is past one only from the next.
      return (
        at < activity.started - SLACK_MS ||
        at > ended + 1 ||
        activity.quiet.some(([a, b]) => at >= a + 1 && at + SLACK_MS <= b)
      );
    })
    .map(({ path }) => path);
}

// The inode change time in ms (null: unknown, counted as the leaf's); a deletion dates by the folder that held it.
function changeTime(root: string, path: string, deleted: boolean): number | null {
  let at = join(root, path);
  if (deleted) at = dirname(at);
  for (;;) {
    try {
      return Number(lstatSync(at, { bigint: true }).ctimeNs / 1000n) / 1000;
    } catch {
      if (!deleted || at === root || dirname(at) === at) return null;
      at = dirname(at);
    }
  }
}

// Every descendant thread of `pid` (/proc/PID/task/TID/children) with its CPU times; whether any is runnable.
function readThreads(pid: number): { threads: string; running: boolean } {
  const parts: string[] = [];
  let running = false;
  const queue = childrenOf(pid);
  for (let i = 0; i < queue.length; i++) {
    const child = queue[i] as number;
    for (const tid of folderNames(`/proc/${child}/task`)) {
      const stat = read(`/proc/${child}/task/${tid}/stat`);
      if (stat === null) continue;
      if (stat.charAt(stat.lastIndexOf(')') + 2) === 'R') running = true;
      parts.push(`${tid}:${read(`/proc/${child}/task/${tid}/schedstat`)?.trim()}`);
    }
    queue.push(...childrenOf(child));
  }
  return { threads: parts.join(','), running };
}

const childrenOf = (pid: number): number[] =>
  folderNames(`/proc/${pid}/task`).flatMap((t) =>
    (read(`/proc/${pid}/task/${t}/children`)?.match(/\d+/g) ?? []).map(Number),
  );

const read = (file: string): string | null => readProcBytes(file)?.toString('latin1') ?? null;

export interface LeafWork {
  leaf: string;
  /** The tree (or commit) the work tree held when the leaf began. */
  start: string;
  /** What it wrote, kept apart; else (unsandboxed) when it ran. */
  apart: ApartEnd | null;
  activity?: LeafActivity;
}

/** After `git add -A`: changes the leaf did not make are unstaged (the work tree keeps them), marked and narrated. */
export async function leaveOutUsersFiles({ ctx, phase, step }: PhaseRun, work: LeafWork, from = `the ${phase} commit`) {
  const changed = (await stagedChanges(ctx, work.start)).map(({ status, path }) => ({ path, deleted: status === 'D' }));
  const { activity, apart } = work;
  const theirs = activity
    ? notTheLeafs(ctx.root, changed, activity)
    : changed.map((c) => c.path).filter((p) => !apart?.wrote.includes(p));
  if (theirs.length === 0) return [];
  const clashed = apart?.clashed.filter((p) => theirs.includes(p)) ?? [];
  const restore = ['--literal-pathspecs', 'restore', '--staged', `--source=${work.start}`];
  await ctx.git([...restore, '--pathspec-from-file=-', '--pathspec-file-nul'], { input: theirs.join('\0') });
  const clashes = clashed.length > 0 ? { clashed } : {};
  ctx.event('mark', { name: 'user-files-left-out', anchor: work.leaf, phase, paths: theirs, ...clashes }, step.title);
  await ctx.say(
    `${theirs.join(', ')}: changed in the work tree while ${work.leaf} ran or after it, ` +
      `but not by the leaf (yours, or another program's): left out of ${from} and kept in the work tree as they are`,
  );
  const beside = relative(ctx.root, apart?.clashedDir ?? '');
  if (clashed.length > 0)
    await ctx.say(
      `${clashed.join(', ')}: changed by ${work.leaf} too; the tree keeps yours, the leaf's is in ${beside}`,
    );
  return theirs;
}

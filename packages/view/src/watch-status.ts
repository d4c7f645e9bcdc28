// chokidar is loaded only here; while a leaf runs, the clock redraws every second (its elapsed time moves).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { collectView } from './collect-view.js';
import { LogTail } from './read-log.js';
import { buildStatus, type StatusData } from './status-data.js';

/** `onFrame` gets each new state (`changed` false for a redraw only the clock asked for); `intervalMs`: the clock's. */
type WatchOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onFrame(data: StatusData, changed: boolean): void;
  intervalMs?: number;
};

// The state without what moves with the clock, to tell a change from a tick.
function fingerprint(data: StatusData): string {
  return JSON.stringify({ ...data, now: '', running: data.running.map((r) => ({ ...r, elapsedMs: 0, fraction: 0 })) });
}

export async function watchStatus(options: WatchOptions): Promise<void> {
  const { watch } = await import('chokidar');
  // No await from here until the abort is listened for: an abort while chokidar loaded is heard.
  if (options.signal.aborted) return;
  const first = collectView({ cwd: options.cwd, env: options.env });
  const tail = new LogTail(first.eventsFile);
  const draw = (): StatusData => buildStatus(collectView({ cwd: options.cwd, env: options.env, tail }), options.env);
  const shown = draw();
  let lastPrint = fingerprint(shown);
  options.onFrame(shown, true);
  const watched = new Set<string>();
  // A leaf's own output (.out, .err) changes all the time and shows in no frame: not watched.
  const watcher = watch([], {
    ignoreInitial: true,
    depth: 2,
    awaitWriteFinish: false,
    ignored: (path: string) => /\.(out|err|sock)$/.test(path),
  });
  const follow = (): void => {
    // The state folder and .leap may not exist yet: each is watched from the first look that finds it.
    const found = [first.stateDir, join(first.repo, '.leap')].filter((dir) => !watched.has(dir) && existsSync(dir));
    for (const dir of found) watched.add(dir);
    if (found.length > 0) watcher.add(found);
  };
  follow();
  let timer: NodeJS.Timeout | undefined;
  let settle: NodeJS.Timeout | undefined;
  let lastRefresh = 0;
  const refresh = (clock: boolean): void => {
    follow();
    const data = draw();
    const print = fingerprint(data);
    const changed = print !== lastPrint;
    lastPrint = print;
    if (changed || (clock && data.running.length > 0)) options.onFrame(data, changed);
  };
  // chokidar coalesces a file's changes that come close together: look once more when they settle.
  const soon = (): void => {
    clearTimeout(settle);
    settle = setTimeout(() => refresh(false), 250);
    if (timer !== undefined) return;
    // Soon, but at most about ten frames a second however fast the log grows.
    timer = setTimeout(
      () => {
        timer = undefined;
        lastRefresh = Date.now();
        refresh(false);
      },
      Math.max(25, lastRefresh + 100 - Date.now()),
    );
  };
  watcher.on('all', soon);
  const clock = setInterval(() => refresh(true), options.intervalMs ?? 1000);
  await new Promise<void>((r) => options.signal.addEventListener('abort', () => r(), { once: true }));
  for (const t of [clock, timer, settle]) clearTimeout(t);
  await watcher.close();
}

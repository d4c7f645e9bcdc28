// Wake-ups from the file system: a watch on a folder that never throws, for callers that also poll.
import { watch, type FSWatcher } from 'node:fs';

/** A folder watch; `active` is false once the watch failed or was closed (polling must carry on alone). */
export interface DirWatch {
  readonly active: boolean;
  close(): void;
}

/** Never throws: a missing folder, EMFILE/ENOSPC or a file system without events give an inactive watch. */
export function watchDir(dir: string, onChange: (filename: string | null) => void): DirWatch {
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir, { persistent: false }, (_event, filename) =>
      onChange(filename === null ? null : String(filename)),
    );
    watcher.on('error', () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null;
  }
  return {
    get active() {
      return watcher !== null;
    },
    close() {
      watcher?.close();
      watcher = null;
    },
  };
}

// Wake-ups from the file system: a watch on a folder that never throws, for callers that also poll.
import { watch, type FSWatcher } from 'node:fs';
import { orElse } from '@leap/core';

/** A folder watch; `active` is false once the watch failed or was closed (polling must carry on alone). */
export type DirWatch = { readonly active: boolean; close(): void };

/** Never throws: a missing folder, EMFILE/ENOSPC or a file system without events give an inactive watch. */
export function watchDir(dir: string, onChange: (filename: string | null) => void): DirWatch {
  let watcher: FSWatcher | null = null;
  const close = (): void => {
    watcher?.close();
    watcher = null;
  };
  const listen = (_event: string, filename: string | Buffer | null): void =>
    onChange(filename === null ? null : String(filename));
  watcher = orElse(() => watch(dir, { persistent: false }, listen), null);
  watcher?.on('error', close);
  return {
    get active() {
      return watcher !== null;
    },
    close,
  };
}

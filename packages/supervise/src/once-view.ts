// A plan's view of the host: it asks about the same places many times, the host answers once.
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FsEntry, FsView } from './sandbox-plan.js';
import { orElse } from '@leap/core';

export const hostView: FsView = {
  list(dir) {
    const entries = orElse(() => readdirSync(dir, { withFileTypes: true }), null);
    if (entries === null) return null;
    // Kinds come with the listing (no lstat per entry) but for DT_UNKNOWN; sockets, fifos and devices are files.
    return entries.flatMap((entry): FsEntry[] => {
      const { name } = entry;
      const p = join(dir, name);
      const known =
        entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
      const kind = entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'dir' : known ? 'file' : hostView.kind(p);
      if (kind === null) return [];
      return [kind === 'symlink' ? { name, kind, target: readlinkSync(p) } : { name, kind }];
    });
  },
  kind(path) {
    // Most places asked about are absent: no exception for them (each costs a stack); ENOTDIR, EACCES are absent too.
    const stat = orElse(() => lstatSync(path, { throwIfNoEntry: false }), undefined);
    if (stat === undefined) return null;
    return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'file';
  },
  // The system's realpath(3): one call, where the JavaScript one walks and lstats every component.
  realpath: (path) => orElse(() => realpathSync.native(path), null),
  readText: (path) =>
    orElse(() => {
      const stat = statSync(path);
      return stat.isFile() && stat.size < 65_536 ? readFileSync(path, 'utf8') : null;
    }, null),
};

/** `view` answering each question once, from listings where it can (docs/decisions/sandbox-cost.md). */
export function onceView(view: FsView): FsView {
  const memo = <T>(ask: (path: string) => T): ((path: string) => T) => {
    const known = new Map<string, T>();
    return (path) => {
      if (!known.has(path)) known.set(path, ask(path));
      return known.get(path) as T;
    };
  };
  const listed = new Map<string, Map<string, FsEntry['kind']> | null>();
  const list = (dir: string): FsEntry[] | null => {
    const entries = view.list(dir);
    listed.set(dir, entries === null ? null : new Map(entries.map((e) => [e.name, e.kind])));
    return entries;
  };
  type Kind = ReturnType<FsView['kind']>;
  // What the listings and earlier answers already say of `path`, or undefined when only the file system can tell.
  const answered = new Map<string, Kind>();
  const said = (path: string): Kind | undefined => {
    if (answered.has(path)) return answered.get(path);
    const parent = dirname(path);
    if (parent === path) return undefined;
    const entries = listed.get(parent);
    if (entries !== undefined && entries !== null) return entries.get(basename(path)) ?? null;
    const above = said(parent);
    // Below an absent place or a file there is nothing; below a folder or a symlink only the file system knows.
    return above === null || above === 'file' ? null : undefined;
  };
  const kind = (path: string): Kind => {
    let answer = said(path);
    if (answer === undefined) answer = view.kind(path);
    answered.set(path, answer);
    return answer;
  };
  return { list: memo(list), kind, realpath: memo((p) => view.realpath(p)), readText: memo((p) => view.readText(p)) };
}

// An exclusive lock file whose holder's death is detected: a dead, zombie or reused pid does not hold it.
import { linkSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFileIfExists } from './read-file.js';
import { InternalError, orElse } from './errors.js';
import { randomHex } from './atomic-write.js';
import { isProcessAlive, processIdentity } from './process-identity.js';

/** The `key=value` line format of pid, exit and lock files, after a first line. */
export function formatKeyValues(first: string | null, values: Record<string, string | number | undefined | null>) {
  const lines = first === null ? [] : [first];
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null) lines.push(`${key}=${String(value).replace(/[\r\n]/g, ' ')}`);
  return `${lines.join('\n')}\n`;
}

/** Parse such a file: its first line, and the `key=value` lines after it (later keys win). */
export function parseKeyValues(text: string): { first: string; values: Record<string, string> } {
  const [first = '', ...rest] = text.split('\n');
  const values: Record<string, string> = {};
  for (const line of rest) {
    const eq = line.indexOf('=');
    if (eq > 0) values[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { first, values };
}

/** A held lock; `release` removes the file only while it is still ours. */
export type Lock = NonNullable<ReturnType<typeof tryLock>>;

type LockHolder = NonNullable<ReturnType<typeof readLockHolder>>;

export function readLockHolder(file: string) {
  const text = readFileIfExists(file);
  if (text === null) return null;
  const { first, values } = parseKeyValues(text);
  return { pid: Number(first), starttime: values.starttime, bootId: values.boot_id, token: values.token };
}

const namesHolder = (holder: LockHolder): boolean => Number.isInteger(holder.pid) && holder.pid > 0;
const holderIsAlive = (holder: LockHolder): boolean => namesHolder(holder) && isProcessAlive(holder);

/** How long an empty lock file counts as being written rather than left by a taker killed before its write. */
const HALF_WRITTEN_LOCK_MS = 1000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

const isBeingWritten = (file: string): boolean =>
  orElse(() => {
    const stat = statSync(file);
    return stat.size === 0 && Date.now() - stat.mtimeMs < HALF_WRITTEN_LOCK_MS;
  }, false);

/** Null while a live process holds `file`; a dead holder's is taken over. `fields` go in the same single write. */
export function tryLock(file: string, fields: Record<string, string | undefined> = {}) {
  const [me, token] = [processIdentity(), randomHex(8)];
  const holder = { starttime: me?.starttime, boot_id: me?.bootId, token, ...fields };
  const content = formatKeyValues(String(process.pid), holder);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(file, content, { flag: 'wx', mode: 0o644 });
      return { file, token, release: () => releaseLock(file, token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLockHolder(file);
    if (holder === null) continue;
    if (!namesHolder(holder) && isBeingWritten(file)) {
      // Empty: its taker is between create and write, or was killed there; wait until it is written or stale.
      Atomics.wait(PAUSE, 0, 0, 10);
      attempt--;
      continue;
    }
    if (holderIsAlive(holder)) return null;
    removeStaleLock(file, holder);
  }
  throw new InternalError(`${file}: could not take the lock after 5 attempts (holders keep changing)`);
}

export function acquireLock(file: string, what = 'lock'): Lock {
  const lock = tryLock(file);
  if (lock !== null) return lock;
  throw new InternalError(`${file}: the ${what} is held by live process ${readLockHolder(file)?.pid ?? '?'}`);
}

// Move the stale file aside atomically, and put it back if a live holder took it meanwhile (and no one else since).
function removeStaleLock(file: string, stale: LockHolder): void {
  const aside = `${file}.${randomHex(4)}.stale`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readLockHolder(aside);
  if (moved !== null && moved.token !== stale.token && holderIsAlive(moved)) orElse(() => linkSync(aside, file), null);
  unlinkSync(aside);
}

function releaseLock(file: string, token: string): void {
  if (readLockHolder(file)?.token === token) unlinkSync(file);
}

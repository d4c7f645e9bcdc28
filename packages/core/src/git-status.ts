/** One changed path: X is the index's side, Y the work tree's (`.` unchanged; `?` both for an untracked path). */
type StatusEntry = { x: string; y: string; path: string };

/** What the status said: HEAD's commit (null before the first), its branch (null when detached), the entries. */
export type StatusV2 = { oid: string | null; branch: string | null; entries: StatusEntry[] };

// Fields before the path in `1`, `2` (its origin follows as an entry of its own) and `u` entries (git-status(1)).
const FIELDS: Record<string, number | undefined> = { 1: 8, 2: 9, u: 10 };

/** Parse `git status --porcelain=v2 -z` output (with or without `--branch`); paths may hold spaces and any byte. */
export function parseStatusV2(out: string): StatusV2 {
  const found: StatusV2 = { oid: null, branch: null, entries: [] };
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry.startsWith('# branch.oid '))
      found.oid = /^[0-9a-f]{40,64}$/.test(entry.slice(13)) ? entry.slice(13) : null;
    else if (entry.startsWith('# branch.head '))
      found.branch = entry === '# branch.head (detached)' ? null : entry.slice(14);
    else if (entry.startsWith('? ')) found.entries.push({ x: '?', y: '?', path: entry.slice(2) });
    else {
      const fields = entry[1] === ' ' ? FIELDS[entry[0] as string] : undefined;
      if (fields === undefined) continue;
      const parts = entry.split(' ');
      const xy = parts[1] ?? '..';
      found.entries.push({ x: xy[0] ?? '.', y: xy[1] ?? '.', path: parts.slice(fields).join(' ') });
      if (entry[0] === '2') i++;
    }
  }
  return found;
}

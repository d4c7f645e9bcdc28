// The jury's "touched files and their consumers": a `git grep -w` of each changed file's name, read-only context.
import { runGit } from '@leap/core';

export const CONSUMER_LIMITS = { files: 12, linesPerFile: 4, lineChars: 200, totalChars: 6000 } as const;

export type Consumer = { path: string; of: string; lines: { n: number; text: string }[] };

/** Stems that name no module by themselves: such a file is named by its folder. */
const FOLDER_NAMED = new Set(['index', 'mod', 'main', 'lib', '__init__', 'init', '__main__', 'package']);

/** The word a consumer would use to name `path`, or null when the name is too short to search for. */
export function consumerName(path: string): string | null {
  const parts = path.split('/');
  const base = parts[parts.length - 1] ?? '';
  let stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  if (FOLDER_NAMED.has(stem) && parts.length > 1) stem = parts[parts.length - 2] ?? stem;
  if (FOLDER_NAMED.has(stem) || stem.length < 3) return null;
  return stem;
}

/** Outside `exclude` (the scope, already shown) and the state folders; `cut`: some were left out. */
export async function findConsumers(dir: string, changed: readonly string[], exclude: ReadonlySet<string>) {
  const consumers: Consumer[] = [];
  const seen = new Set<string>();
  let cut = false;
  for (const file of changed) {
    const name = consumerName(file);
    if (name === null) continue;
    const args = ['grep', '-n', '-z', '-I', '-F', '-w', '-e', name, '--', '.', ':!.leap', ':!.tdd'];
    const found = await runGit(args, { cwd: dir, allowFailure: true });
    // Exit 1 is "nothing found"; anything else (not a repository) gives no consumers, never a failed round.
    if (found.code !== 0) continue;
    const byPath = new Map<string, Consumer>();
    for (const { path, n, text } of grepHits(found.stdout)) {
      if (exclude.has(path) || changed.includes(path)) continue;
      let consumer = byPath.get(path);
      if (consumer === undefined) {
        if (seen.has(path)) continue;
        const full = consumers.length + byPath.size >= CONSUMER_LIMITS.files;
        cut ||= full;
        if (full) continue;
        consumer = { path, of: file, lines: [] };
        byPath.set(path, consumer);
      }
      const long = consumer.lines.length >= CONSUMER_LIMITS.linesPerFile;
      cut ||= long;
      if (long) continue;
      const shown = text.trim();
      const { lineChars } = CONSUMER_LIMITS;
      consumer.lines.push({ n, text: shown.length > lineChars ? `${shown.slice(0, lineChars)}...` : shown });
    }
    for (const consumer of byPath.values()) {
      seen.add(consumer.path);
      consumers.push(consumer);
    }
  }
  return { consumers, cut };
}

/** `git grep -n -z`'s hits: `PATH\0N\0TEXT\n` each; a path may hold a newline (it is verbatim), a line cannot. */
function* grepHits(out: string): Generator<{ path: string; n: number; text: string }> {
  let at = 0;
  while (at < out.length) {
    const afterPath = out.indexOf('\0', at);
    const afterN = afterPath < 0 ? -1 : out.indexOf('\0', afterPath + 1);
    if (afterN < 0) return;
    const end = out.indexOf('\n', afterN + 1);
    const stop = end < 0 ? out.length : end;
    yield {
      path: out.slice(at, afterPath),
      n: Number(out.slice(afterPath + 1, afterN)),
      text: out.slice(afterN + 1, stop),
    };
    at = stop + 1;
  }
}

export function renderConsumers(found: { consumers: Consumer[]; cut: boolean }): string {
  if (found.consumers.length === 0) return '';
  let text =
    '\nConsumers of the changed files (read-only context, not part of the candidate: files outside the scope ' +
    'that name a changed file, found by its name with git grep; check that the change does not break them):';
  let cut = found.cut;
  for (const consumer of found.consumers) {
    const block =
      `\n- ${consumer.path} (names ${consumer.of}):` + consumer.lines.map((l) => `\n    ${l.n}: ${l.text}`).join('');
    if (text.length + block.length > CONSUMER_LIMITS.totalChars) {
      cut = true;
      break;
    }
    text += block;
  }
  return cut ? `${text}\n(more consumers were found than are shown here)` : text;
}

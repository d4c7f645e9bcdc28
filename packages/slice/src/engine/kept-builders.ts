// A candidate built on another builder's kept work (a fall-over, a held ball rerun) is judged by neither's family.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isAncestor } from './git.js';
import { readRecord, type RoundRecord, type SlicePaths } from './records.js';

export async function keptBuilderFamilies(repo: string, paths: SlicePaths, ball: string, tip: string) {
  const dir = paths.ball(ball);
  if (!existsSync(dir)) return [];
  const episodes = readdirSync(dir).filter((f) => /^episode-\d+$/.test(f));
  const folders = [dir, ...episodes.map((f) => join(dir, f))];
  const families = new Set<string>();
  for (const folder of folders)
    for (let n = 1; n <= 4; n++) {
      const round = readRecord<RoundRecord>(join(folder, `round-${n}.json`));
      const family = round?.builder?.family;
      if (round?.commit == null || typeof family !== 'string' || families.has(family)) continue;
      if (await isAncestor(repo, round.commit, tip)) families.add(family);
    }
  return [...families];
}

export function builtBy(kept: readonly string[], builder: { family: string }): { builtBy?: string[] } {
  const families = kept.filter((f) => f !== builder.family);
  return families.length === 0 ? {} : { builtBy: families };
}

// Finding a step's red verdict in the event log without loading the schema reader (a hot path).
import { readFileIfExists, orElse } from '@leap/core';
import type { TestCounts } from './test-report.js';

export type RedVerdict = { commit: string; tests: string[]; counts: TestCounts | null };

/** The last PASS of `phase` for `step` that recorded its commit and tests; unparsable lines (a torn last) skipped. */
export function findRedVerdict(eventsFile: string, step: string, issue: number | null, phase = 'red') {
  const lines = (readFileIfExists(eventsFile) ?? '').split('\n');
  for (const line of lines.reverse()) {
    if (!line.includes('"verdict"') || !line.includes(`"${phase}"`)) continue;
    const event = orElse(() => JSON.parse(line) as Record<string, unknown>, null);
    if (event === null) continue;
    if (event.event !== 'verdict' || event.phase !== phase || event.verdict !== 'PASS' || event.step !== step) continue;
    if (issue !== null && typeof event.issue === 'number' && event.issue !== issue) continue;
    const tests = event.tests;
    if (typeof event.commit !== 'string' || !Array.isArray(tests) || !tests.every((t) => typeof t === 'string'))
      continue;
    const counts = event.counts as TestCounts | null | undefined;
    return { commit: event.commit, tests: tests as string[], counts: counts ?? null } satisfies RedVerdict;
  }
  return null;
}

// The summary ending `leap slice run`: balls, receipts, rounds, reviewers, builders that ran dry, wall time.
import type { RunSummary } from './run-slice.js';

const WORD = { 1: 'passed', 0: 'held', [-1]: 'refused' } as const;

export function renderSummary(s: RunSummary): string {
  const width = Math.max(4, ...s.balls.map((b) => b.id.length));
  const lines = [
    `slice ${s.slice}: ${WORD[s.receipt]} (${s.receipt}) on ${s.spine} at ${s.spineCommit.slice(0, 12)}` +
      (s.stopped === null ? '' : `; ${s.stopped}`),
    `${'ball'.padEnd(width)}  receipt  rounds  candidate     reason`,
    ...s.balls.map(
      (b) =>
        `${b.id.padEnd(width)}  ${String(b.receipt).padStart(7)}  ${String(b.rounds).padStart(6)}  ` +
        `${(b.candidate ?? '-').slice(0, 12).padEnd(12)}  ${b.reused ? '(passed earlier) ' : ''}${oneLine(b.reason)}`,
    ),
  ];
  if (s.aggregate !== null) lines.push(`aggregate jury: ${s.aggregate.value}: ${oneLine(s.aggregate.reason)}`);
  lines.push(`reviewers: ${s.reviewers.length === 0 ? 'none seated' : s.reviewers.join(', ')}`);
  for (const d of s.dried ?? [])
    lines.push(`ran dry: ${d.agent} (${d.family}) ${d.cause}: ${oneLine(d.message)}; skipped for the rest of the run`);
  const unknown = s.spent.unknown > 0 ? ` (${s.spent.unknown} leaf/leaves reported no cost)` : '';
  if (s.spent.leaves.length > 0) lines.push(`spent: $${s.spent.usd.toFixed(4)}${unknown}`);
  if (s.record !== null) lines.push(`record: ${s.record}`);
  lines.push(`wall time: ${(s.wallMs / 1000).toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

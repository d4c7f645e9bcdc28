// Text from events is made terminal-safe and cut to the width.
import { relative } from 'node:path';
import { clockTime, formatDuration, formatTokens, formatUsd, terminalSafe, truncate } from './_text.js';
import { describeTotal } from './cost.js';
import type { StatusData } from './status-data.js';

export interface RenderOptions {
  width: number;
  color: boolean;
}

const CODES = { bold: '1', dim: '2', red: '31', green: '32', yellow: '33', blue: '34', cyan: '36' } as const;
type Paint = (style: keyof typeof CODES, text: string) => string;

/** A bar of `width` cells: `full` of the total done, `half` more in a lighter shade. */
function progressBar(full: number, half: number, total: number, width: number): string {
  if (total <= 0) return `[${'·'.repeat(width)}]`;
  const a = Math.round((Math.min(full, total) / total) * width);
  const b = Math.min(width - a, Math.round((Math.min(half, total) / total) * width));
  return `[${'█'.repeat(a)}${'▒'.repeat(b)}${'░'.repeat(width - a - b)}]`;
}

const RECEIPT: Record<string, string> = { '-1': '-1 refused', '0': '0 held', '1': '1 passed' };

export function renderStatus(data: StatusData, options: RenderOptions): string {
  const paint: Paint = options.color ? (style, text) => `\x1b[${CODES[style]}m${text}\x1b[0m` : (_style, text) => text;
  const width = Math.max(40, options.width);
  const safe = (text: string, room: number): string => truncate(terminalSafe(text), Math.max(8, room));
  const out: string[] = [];
  const rel = (file: string): string => relative(data.repo, file) || file;
  const section = (title: string): void => {
    out.push('', paint('bold', title));
  };

  out.push(`${paint('bold', 'leap status')}  ${safe(data.repo, width - 40)}  ${data.now.slice(0, 19).replace('T', ' ')}Z  ${data.log.events} ${data.log.events === 1 ? 'event' : 'events'}`);
  if (!data.log.exists) {
    out.push('', `No event log yet (${rel(data.eventsFile)}): nothing has run in this repository.`);
  } else if (data.log.events === 0 && data.log.problems.length === 0) {
    out.push('', `The event log (${rel(data.eventsFile)}) is empty: nothing has run yet.`);
  }

  for (const issue of data.issues) {
    section(`Issue ${issue.issue}${issue.title === null ? '' : `  ${safe(issue.title, width - 12)}`}`);
    if (issue.ledger === null) {
      out.push(`  no ledger yet (.tdd/issue-${issue.issue}.md)`);
    } else {
      const pending = issue.refactorPending > 0 ? `, ${issue.refactorPending} refactor pending` : '';
      out.push(`  ${progressBar(issue.done, issue.refactorPending, issue.total, 24)} ${issue.done}/${issue.total} steps done${pending}`);
    }
    for (const step of issue.steps) {
      const mark = step.state === 'done' ? paint('green', '✓') : step.state === 'refactor-pending' ? paint('yellow', '◐') : '○';
      const where = step.current ? paint('cyan', `  ◀ ${step.phase ?? 'next'}`) : '';
      const note = step.state === 'refactor-pending' ? paint('dim', ' (refactor pending)') : '';
      out.push(`  ${mark} ${safe(step.title, width - 30)}${note}${where}`);
    }
    if (issue.stopped !== null) {
      const where = issue.stopped.step === null ? '' : ` in ${JSON.stringify(safe(issue.stopped.step, width - 60))}`;
      out.push(paint('yellow', `  stopped (${issue.stopped.mode}) at ${clockTime(Date.parse(issue.stopped.at))}${where}; leap tdd run --issue ${issue.issue} resumes it`));
    }
    if (issue.cost !== null) out.push(paint('dim', `  cost: ${describeTotal(issue.cost, { tokens: formatTokens, usd: formatUsd })}`));
  }

  section('Running now');
  if (data.running.length === 0 && data.remote.length === 0) out.push('  no leaf is running');
  for (const r of data.remote) {
    const where = `slice ${safe(r.slice, 30)} ball ${safe(r.ball, 30)} round ${r.round}`;
    const what =
      r.state === 'queued'
        ? paint('yellow', `queued for ${formatDuration(r.sinceMs)}: no worker has taken it`)
        : r.state === 'building'
          ? `building on worker ${safe(r.worker ?? '?', 40)}${r.phase === null ? '' : ` (${r.phase})`} for ${formatDuration(r.sinceMs)}`
          : `returned by worker ${safe(r.worker ?? '?', 40)}, the engine checking it`;
    out.push(`  ${paint(r.state === 'queued' ? 'yellow' : 'blue', r.state === 'queued' ? '◌' : '●')} ${where}  ${what}`);
  }
  for (const r of data.running) {
    const where = r.slice !== null ? `slice ${r.slice}` : r.issue !== null ? `issue ${r.issue}` : '';
    const limit = r.fraction === null ? 'no time limit' : `of ${formatDuration(r.timeLimitMs)} ${progressBar(Math.min(1, r.fraction), 0, 1, 10)} ${Math.round(r.fraction * 100)}%`;
    const style = r.fraction !== null && r.fraction >= 0.8 ? 'red' : 'blue';
    const head = `  ${paint(style, '●')} ${safe(r.leaf, 30)}  ${where}  ${r.phase ?? '-'}  attempt ${r.attempt ?? '-'}  ${formatDuration(r.elapsedMs)} ${limit}`;
    out.push(head);
    if (r.step !== null) out.push(paint('dim', `      step: ${safe(r.step, width - 12)}`));
  }
  if (data.unsandboxed.leaves > 0) {
    out.push(
      paint('yellow', `  ! ${data.unsandboxed.leaves} leaf run${data.unsandboxed.leaves === 1 ? '' : 's'} outside the sandbox (--sandbox off), the last ${safe(data.unsandboxed.last ?? '', 30)}`),
    );
  }
  for (const l of data.lost) {
    out.push(paint('yellow', `  ? ${safe(l.leaf, 30)}  launched ${l.startedAt.slice(11, 19)}, no exit recorded and its supervisor is gone`));
  }

  if (data.verdicts.length > 0) {
    section('Last verdicts');
    for (const v of data.verdicts) {
      const style = v.verdict === 'PASS' ? 'green' : v.verdict === 'REJECT' ? 'yellow' : 'red';
      const head = `  ${clockTime(Date.parse(v.at))}  ${paint(style, v.verdict.padEnd(6))} ${v.phase.padEnd(8)} `;
      out.push(`${head}${safe(v.step ?? '', width - 28)}`);
      if (v.reason !== '') out.push(paint('dim', `      ${safe(v.reason, width - 8)}`));
    }
  }
  if (data.flaky.length > 0) {
    section(paint('yellow', 'Flaky tests (passed once and failed once on the same tree)'));
    for (const f of data.flaky) {
      const where = f.issue === null ? '' : `  issue ${f.issue}${f.step === null ? '' : ` ${safe(f.step, 40)}`}`;
      out.push(`  ${clockTime(Date.parse(f.at))}  ${safe(f.tests.length === 0 ? '(no test named)' : f.tests.join(', '), width - 60)}${where}`);
    }
  }
  if (data.bails.length > 0) {
    section('Bails');
    for (const b of data.bails) {
      out.push(
        `  ${clockTime(Date.parse(b.at))}  ${paint('red', `bail: ${safe(b.cause, 30)} (${safe(b.class, 10)})`)}${b.issue === null ? '' : `  issue ${b.issue}`}${b.detail === null ? '' : `  ${safe(b.detail, width - 50)}`}`,
      );
    }
  }
  if (data.fallovers.length > 0) {
    section('Fall-overs (a vendor ran dry)');
    for (const f of data.fallovers) {
      const where = f.slice !== null ? `  slice ${safe(f.slice, 30)}${f.ball === null ? '' : ` ball ${safe(f.ball, 30)}`}` : f.issue === null ? '' : `  issue ${f.issue}`;
      const then = f.next === null ? paint('red', 'none left') : `→ ${safe(f.next, 30)}`;
      out.push(`  ${clockTime(Date.parse(f.at))}  ${safe(f.leaf, 30)}  ${safe(f.role, 12)} ${safe(f.agent, 30)} ${paint('yellow', safe(f.cause, 12))} ${then}${where}`);
      if (f.message !== '') out.push(paint('dim', `      ${safe(f.message, width - 8)}`));
    }
  }
  if (data.stop.pending !== null) {
    section(paint('yellow', `Stop requested: ${data.stop.pending}`));
    out.push(
      `  ${rel(data.stateDir)}/stop; the run stops ${data.stop.pending === 'at-ledger' ? 'after the step in flight' : data.stop.pending === 'at-leaf' ? 'before its next leaf' : 'now, ending the running leaf'}`,
    );
  } else if (data.stop.unreadable !== null) {
    section(paint('yellow', 'Stop file unreadable'));
    out.push(`  ${safe(data.stop.unreadable, width - 4)}`);
  }

  for (const slice of data.slices) {
    section(`Slice ${safe(slice.id, 40)}${slice.record ? paint('green', '  passed (record.json written)') : ''}`);
    const waves = new Map<string, typeof slice.balls>();
    for (const ball of slice.balls) {
      const key = ball.wave === null ? '?' : String(ball.wave);
      waves.set(key, [...(waves.get(key) ?? []), ball]);
    }
    for (const [wave, balls] of waves) {
      for (const ball of balls) {
        const receipt =
          ball.receipt === null ? paint('dim', 'no receipt') : paint(ball.receipt === 1 ? 'green' : ball.receipt === 0 ? 'yellow' : 'red', RECEIPT[String(ball.receipt)] ?? String(ball.receipt));
        const rounds = ball.rounds.map((r) => `r${r.round}:${r.receipt ?? '·'}`).join(' ');
        const extra = [ball.state, rounds, ball.reviews > 0 ? `${ball.reviews} reviews` : '', ball.merged ? 'merged' : ''].filter((x) => x !== null && x !== '').join('  ');
        out.push(`  wave ${wave}  ${safe(ball.id, 30)}  ${receipt}  ${paint('dim', safe(extra, width - 50))}`);
      }
    }
    if (slice.cost !== null) out.push(paint('dim', `  cost: ${describeTotal(slice.cost, { tokens: formatTokens, usd: formatUsd })}`));
  }

  section('Tokens and cost so far');
  out.push(`  ${describeTotal(data.cost, { tokens: formatTokens, usd: formatUsd })}`);

  const problems = [
    ...data.log.problems.map((p) => `${rel(data.eventsFile)}:${p.line}: ${p.message}`),
    ...data.log.unknown.map((u) => `${rel(data.eventsFile)}:${u.line}: an event kind this view does not know, ${JSON.stringify(u.event)}; listed, not drawn`),
    ...data.fileProblems.map((p) => `${rel(p.file)}: ${p.message}`),
  ];
  if (problems.length > 0 || data.log.tornTail) {
    section(paint('yellow', 'Problems'));
    for (const p of problems.slice(0, 20)) out.push(`  ${safe(p, width - 4)}`);
    if (problems.length > 20) out.push(`  ... and ${problems.length - 20} more (leap status --json lists them all)`);
    if (data.log.tornTail) out.push(`  ${rel(data.eventsFile)}: the last line has no end yet (being written, or torn by a crash); not counted`);
  }
  return `${out.join('\n')}\n`;
}

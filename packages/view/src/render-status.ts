// Text from events is made terminal-safe and cut to the width.
import { relative } from 'node:path';
import { showText } from '@leap/core';
import { byWave, clockTime, formatDuration, RECEIPT_TEXT, remoteWords, TORN, truncate } from './_text.js';
import { describeTotal } from './cost.js';
import type { StatusData } from './status-data.js';

type RenderOptions = { width: number; color: boolean };

const CODES = { bold: '1', dim: '2', red: '31', green: '32', yellow: '33', blue: '34', cyan: '36' } as const;
type Paint = (style: keyof typeof CODES, text: string) => string;

type Pen = { out: string[]; paint: Paint; width: number; rel(file: string): string; section(title: string): void };

const safe = (text: string, room: number): string => truncate(showText(text), Math.max(8, room));

/** A bar of `width` cells: `full` of the total done, `half` more in a lighter shade. */
function progressBar(full: number, half: number, total: number, width: number): string {
  if (total <= 0) return `[${'·'.repeat(width)}]`;
  const a = Math.round((Math.min(full, total) / total) * width);
  const b = Math.min(width - a, Math.round((Math.min(half, total) / total) * width));
  return `[${'█'.repeat(a)}${'▒'.repeat(b)}${'░'.repeat(width - a - b)}]`;
}

export function renderStatus(data: StatusData, options: RenderOptions): string {
  const paint: Paint = options.color ? (style, text) => `\x1b[${CODES[style]}m${text}\x1b[0m` : (_style, text) => text;
  const width = Math.max(40, options.width);
  const out: string[] = [];
  const rel = (file: string): string => relative(data.repo, file) || file;
  const section = (title: string): number => out.push('', paint('bold', title));
  const pen: Pen = { out, paint, width, rel, section };
  const events = `${data.log.events} ${data.log.events === 1 ? 'event' : 'events'}`;
  const now = `${data.now.slice(0, 19).replace('T', ' ')}Z`;
  out.push(`${paint('bold', 'leap status')}  ${safe(data.repo, width - 40)}  ${now}  ${events}`);
  if (!data.log.exists) out.push('', `No event log yet (${rel(data.eventsFile)}): nothing has run in this repository.`);
  else if (data.log.events === 0 && data.log.problems.length === 0)
    out.push('', `The event log (${rel(data.eventsFile)}) is empty: nothing has run yet.`);
  for (const issue of data.issues) drawIssue(pen, issue);
  for (const draw of [drawRunning, drawVerdicts, drawFlaky, drawBails, drawFallovers, drawStop]) draw(pen, data);
  for (const slice of data.slices) drawSlice(pen, slice);
  pen.section('Tokens and cost so far');
  out.push(`  ${describeTotal(data.cost)}`);
  drawProblems(pen, data);
  return `${out.join('\n')}\n`;
}

function drawIssue({ out, paint, width, section }: Pen, issue: StatusData['issues'][number]): void {
  section(`Issue ${issue.issue}${issue.title === null ? '' : `  ${safe(issue.title, width - 12)}`}`);
  if (issue.ledger === null) out.push(`  no ledger yet (.tdd/issue-${issue.issue}.md)`);
  else {
    const pending = issue.refactorPending > 0 ? `, ${issue.refactorPending} refactor pending` : '';
    const bar = progressBar(issue.done, issue.refactorPending, issue.total, 24);
    out.push(`  ${bar} ${issue.done}/${issue.total} steps done${pending}`);
  }
  for (const step of issue.steps) {
    const pending = step.state === 'refactor-pending';
    const mark = step.state === 'done' ? paint('green', '✓') : pending ? paint('yellow', '◐') : '○';
    const where = step.current ? paint('cyan', `  ◀ ${step.phase ?? 'next'}`) : '';
    out.push(`  ${mark} ${safe(step.title, width - 30)}${pending ? paint('dim', ' (refactor pending)') : ''}${where}`);
  }
  if (issue.stopped !== null) {
    const { mode, at, step } = issue.stopped;
    const where = step === null ? '' : ` in ${JSON.stringify(safe(step, width - 60))}`;
    const resume = `; leap tdd run --issue ${issue.issue} resumes it`;
    out.push(paint('yellow', `  stopped (${mode}) at ${clockTime(Date.parse(at))}${where}${resume}`));
  }
  if (issue.cost !== null) out.push(paint('dim', `  cost: ${describeTotal(issue.cost)}`));
}

function drawRunning(pen: Pen, data: StatusData): void {
  const { out, paint } = pen;
  pen.section('Running now');
  if (data.running.length === 0 && data.remote.length === 0) out.push('  no leaf is running');
  for (const r of data.remote) out.push(remoteLine(pen, r));
  for (const r of data.running) drawLeaf(pen, r);
  const { leaves, last } = data.unsandboxed;
  if (leaves > 0) {
    const runs = `${leaves} leaf run${leaves === 1 ? '' : 's'}`;
    out.push(paint('yellow', `  ! ${runs} outside the sandbox (--sandbox off), the last ${safe(last ?? '', 30)}`));
  }
  for (const l of data.lost) {
    const what = `launched ${l.startedAt.slice(11, 19)}, no exit recorded and its supervisor is gone`;
    out.push(paint('yellow', `  ? ${safe(l.leaf, 30)}  ${what}`));
  }
}

function remoteLine({ paint }: Pen, r: StatusData['remote'][number]): string {
  const where = `slice ${safe(r.slice, 30)} ball ${safe(r.ball, 30)} round ${r.round}`;
  const phase = r.phase === null ? '' : ` (${r.phase})`;
  const what = remoteWords(r.state, safe(r.worker ?? '?', 40), phase, ` for ${formatDuration(r.sinceMs)}`);
  if (r.state === 'queued') return `  ${paint('yellow', '◌')} ${where}  ${paint('yellow', what)}`;
  return `  ${paint('blue', '●')} ${where}  ${what}`;
}

function drawLeaf({ out, paint, width }: Pen, r: StatusData['running'][number]): void {
  const where = r.slice !== null ? `slice ${r.slice}` : r.issue !== null ? `issue ${r.issue}` : '';
  const f = r.fraction;
  const bar = f === null ? '' : `${progressBar(Math.min(1, f), 0, 1, 10)} ${Math.round(f * 100)}%`;
  const limit = f === null ? 'no time limit' : `of ${formatDuration(r.timeLimitMs)} ${bar}`;
  const what = `${r.phase ?? '-'}  attempt ${r.attempt ?? '-'}  ${formatDuration(r.elapsedMs)} ${limit}`;
  out.push(`  ${paint(f !== null && f >= 0.8 ? 'red' : 'blue', '●')} ${safe(r.leaf, 30)}  ${where}  ${what}`);
  if (r.step !== null) out.push(paint('dim', `      step: ${safe(r.step, width - 12)}`));
}

function drawVerdicts({ out, paint, width, section }: Pen, { verdicts }: StatusData): void {
  if (verdicts.length > 0) section('Last verdicts');
  for (const v of verdicts) {
    const style = v.verdict === 'PASS' ? 'green' : v.verdict === 'REJECT' ? 'yellow' : 'red';
    const head = `  ${clockTime(Date.parse(v.at))}  ${paint(style, v.verdict.padEnd(6))} ${v.phase.padEnd(8)} `;
    out.push(`${head}${safe(v.step ?? '', width - 28)}`);
    if (v.reason !== '') out.push(paint('dim', `      ${safe(v.reason, width - 8)}`));
  }
}

function drawFlaky({ out, paint, width, section }: Pen, { flaky }: StatusData): void {
  if (flaky.length > 0) section(paint('yellow', 'Flaky tests (passed once and failed once on the same tree)'));
  for (const f of flaky) {
    const where = f.issue === null ? '' : `  issue ${f.issue}${f.step === null ? '' : ` ${safe(f.step, 40)}`}`;
    const tests = f.tests.length === 0 ? '(no test named)' : f.tests.join(', ');
    out.push(`  ${clockTime(Date.parse(f.at))}  ${safe(tests, width - 60)}${where}`);
  }
}

function drawBails({ out, paint, width, section }: Pen, { bails }: StatusData): void {
  if (bails.length > 0) section('Bails');
  for (const b of bails) {
    const bail = paint('red', `bail: ${safe(b.cause, 30)} (${safe(b.class, 10)})`);
    const detail = b.detail === null ? '' : `  ${safe(b.detail, width - 50)}`;
    out.push(`  ${clockTime(Date.parse(b.at))}  ${bail}${b.issue === null ? '' : `  issue ${b.issue}`}${detail}`);
  }
}

function drawFallovers({ out, paint, width, section }: Pen, { fallovers }: StatusData): void {
  if (fallovers.length > 0) section('Fall-overs (a vendor ran dry)');
  for (const f of fallovers) {
    const ball = f.ball === null ? '' : ` ball ${safe(f.ball, 30)}`;
    const issue = f.issue === null ? '' : `  issue ${f.issue}`;
    const where = f.slice !== null ? `  slice ${safe(f.slice, 30)}${ball}` : issue;
    const then = f.next === null ? paint('red', 'none left') : `→ ${safe(f.next, 30)}`;
    const who = `${safe(f.leaf, 30)}  ${safe(f.role, 12)} ${safe(f.agent, 30)}`;
    out.push(`  ${clockTime(Date.parse(f.at))}  ${who} ${paint('yellow', safe(f.cause, 12))} ${then}${where}`);
    if (f.message !== '') out.push(paint('dim', `      ${safe(f.message, width - 8)}`));
  }
}

function drawStop({ out, paint, width, rel, section }: Pen, data: StatusData): void {
  const { pending, unreadable } = data.stop;
  if (pending !== null) {
    section(paint('yellow', `Stop requested: ${pending}`));
    const later = pending === 'at-leaf' ? 'before its next leaf' : 'now, ending the running leaf';
    const when = pending === 'at-ledger' ? 'after the step in flight' : later;
    out.push(`  ${rel(data.stateDir)}/stop; the run stops ${when}`);
  } else if (unreadable !== null) {
    section(paint('yellow', 'Stop file unreadable'));
    out.push(`  ${safe(unreadable, width - 4)}`);
  }
}

function drawSlice({ out, paint, width, section }: Pen, slice: StatusData['slices'][number]): void {
  section(`Slice ${safe(slice.id, 40)}${slice.record ? paint('green', '  passed (record.json written)') : ''}`);
  for (const [wave, balls] of byWave(slice.balls))
    for (const ball of balls) {
      const notes = paint('dim', safe(ballNotes(ball), width - 50));
      out.push(`  wave ${wave}  ${safe(ball.id, 30)}  ${receiptText(paint, ball.receipt)}  ${notes}`);
    }
  if (slice.cost !== null) out.push(paint('dim', `  cost: ${describeTotal(slice.cost)}`));
}

function ballNotes(ball: StatusData['slices'][number]['balls'][number]): string {
  const rounds = ball.rounds.map((r) => `r${r.round}:${r.receipt ?? '·'}`).join(' ');
  const reviews = ball.reviews > 0 ? `${ball.reviews} reviews` : '';
  return [ball.state, rounds, reviews, ball.merged ? 'merged' : ''].filter((x) => x !== null && x !== '').join('  ');
}

function receiptText(paint: Paint, receipt: number | null): string {
  if (receipt === null) return paint('dim', 'no receipt');
  const style = receipt === 1 ? 'green' : receipt === 0 ? 'yellow' : 'red';
  return paint(style, RECEIPT_TEXT[String(receipt)] ?? String(receipt));
}

function drawProblems({ out, paint, width, rel, section }: Pen, data: StatusData): void {
  const log = rel(data.eventsFile);
  const { tornTail } = data.log;
  const unknown = (e: string) => `an event kind this view does not know, ${JSON.stringify(e)}; listed, not drawn`;
  const problems = [
    ...data.log.problems.map((p) => `${log}:${p.line}: ${p.message}`),
    ...data.log.unknown.map((u) => `${log}:${u.line}: ${unknown(u.event)}`),
    ...data.fileProblems.map((p) => `${rel(p.file)}: ${p.message}`),
  ];
  if (problems.length === 0 && !tornTail) return;
  section(paint('yellow', 'Problems'));
  for (const p of problems.slice(0, 20)) out.push(`  ${safe(p, width - 4)}`);
  if (problems.length > 20) out.push(`  ... and ${problems.length - 20} more (leap status --json lists them all)`);
  if (tornTail) out.push(`  ${log}: ${TORN}`);
}

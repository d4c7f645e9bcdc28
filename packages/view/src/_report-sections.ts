// Every text from an event or a file goes through `esc`.
import type { TextParts } from '@leap/core';
import { byWave, clockTime, escapeHtml as esc, formatDuration, RECEIPT_TEXT, remoteWords, TORN } from './_text.js';
import { along, type Span } from './_report-timeline.js';
import type { ViewData } from './collect-view.js';
import { pushTo } from './_fold-leaves.js';
import { flakyVerdicts, type BallRun, type LeafRun, type RunModel, type Verdict } from './fold-run.js';
import type { RemoteRoundState } from './read-state.js';

function receiptBadge(value: number | null): string {
  if (value === null) return '<span class="badge rn">no receipt</span>';
  return `<span class="badge r${value}">${RECEIPT_TEXT[String(value)] ?? String(value)}</span>`;
}

const LAST_TICKS = 100;

const time = (ms: number): string => `<td class="t">${Number.isFinite(ms) ? clockTime(ms) : ''}`;
const head = (...cols: string[]): string => `<table><thead><tr><th>${cols.join('</th><th>')}</th></tr></thead><tbody>`;
const where = (v: Verdict): string => `<td>${v.issue ?? ''}<td class="reason">${esc(v.step ?? '')}<td>${esc(v.phase)}`;

export function renderVerdicts(model: RunModel, out: TextParts): void {
  if (model.verdicts.length === 0) return void out.push('<p class="empty">No verdict yet.</p>');
  const revisions = new Map<string, LeafRun[]>();
  for (const l of model.leaves)
    if (l.actor === 'developer' && (l.attempt ?? 1) > 1) pushTo(revisions, `${l.issue}\n${l.step}\n${l.phase}`, l);
  out.push(head('time', 'issue', 'step', 'phase', 'verdict', 'reason', 'agent', 'then'));
  for (const v of model.verdicts) {
    const key = `${v.issue}\n${v.step}\n${v.phase}`;
    const revision = v.verdict === 'REJECT' ? revisions.get(key)?.find((l) => l.launchedAt >= v.at) : undefined;
    const next = revision === undefined ? '' : `revision: ${esc(revision.leaf)}`;
    const verdict = esc(v.verdict);
    out.push(
      `<tr class="verdict-row">${time(v.at)}${where(v)}<td><span class="badge v-${verdict}">${verdict}</span>` +
        `<td class="reason">${esc(v.reason)}<td>${esc(v.agent ?? '')}<td>${next}\n`,
    );
  }
  out.push('</tbody></table>');
}

export function renderFlaky(model: RunModel): string {
  const flaky = flakyVerdicts(model);
  if (flaky.length === 0) return '';
  const rows = flaky.map(
    (v) =>
      `<tr class="flaky-row">${time(v.at)}<td>${esc(v.tests.join(', ') || '(no test named)')}${where(v)}` +
      `<td class="reason">${esc(v.reason)}\n`,
  );
  const title = '<h3 id="flaky">Flaky tests: passed once and failed once on the same tree</h3>';
  return `${title}${head('time', 'test', 'issue', 'step', 'phase', 'reason')}${rows.join('')}</tbody></table>`;
}

export function renderBailsAndStops(model: RunModel): string {
  const reason = (cell: string): string => `<td class="reason">${esc(cell)}</td>`;
  const rows = [
    ...model.bails.map((b) => ({
      at: b.at,
      html:
        `<tr class="bail-row">${time(b.at)}<td>bail</td><td>${b.issue ?? ''}</td>${reason(b.step ?? '')}` +
        `<td><b>${esc(b.cause)}</b> (${esc(b.class)})</td>${reason(b.detail ?? '')}</tr>`,
    })),
    ...model.fallovers.map((f) => ({
      at: f.at,
      html:
        `<tr class="fallover-row">${time(f.at)}<td>fall-over</td><td>${f.issue ?? ''}</td>` +
        reason(f.slice === null ? (f.step ?? '') : `${f.slice}${f.ball === null ? '' : `/${f.ball}`}`) +
        `<td><b>${esc(f.cause)}</b> (${esc(f.role)} ${esc(f.agent)} → ` +
        `${f.next === null ? 'none left' : esc(f.next)})</td>${reason(`${f.leaf}: ${f.message}`)}</tr>`,
    })),
    ...model.stops.map((s) => ({
      at: s.at,
      html:
        `<tr class="stop-row">${time(s.at)}<td>stop</td><td>${s.issue ?? ''}</td><td></td>` +
        `<td><b>${esc(s.mode ?? '')}</b> ${esc(s.action)}</td>` +
        `<td>${s.leaf === null ? '' : `leaf ${esc(s.leaf)}`}</td></tr>`,
    })),
  ].sort((a, b) => a.at - b.at);
  if (rows.length === 0) return '<p class="empty">No bail, no stop, no fall-over.</p>';
  const body = rows.map((r) => r.html).join('');
  return `${head('time', 'what', 'issue', 'step', 'cause', 'detail')}${body}</tbody></table>`;
}

/** Each issue's ledger progress over time: steps ticked (green) and refactored (done), as step lines. */
export function renderLedgerProgress(view: ViewData, span: Span): string {
  const issues = new Set([...view.ledgers.map((l) => l.issue), ...view.model.ticks.flatMap((t) => t.issue ?? [])]);
  if (issues.size === 0) return '<p class="empty">No ledger yet.</p>';
  const out: string[] = [];
  for (const issue of [...issues].sort((a, b) => a - b)) {
    const ledger = view.ledgers.find((l) => l.issue === issue);
    const ticks = view.model.ticks.filter((t) => t.issue === issue);
    const steps = (action: string) =>
      ticks.filter((t) => t.action === action).map((t, i): [number, number] => [t.at, i + 1]);
    const [green, done] = [steps('tick'), steps('clear-refactor-pending')];
    const total = Math.max(ledger?.steps.length ?? 0, green.length, 1);
    const x = (t: number): number => 40 + along(span, t) * 700;
    const y = (n: number): number => 120 - (n / total) * 100;
    // One step per pixel at most: a long ledger's ticks that fall in one column make one riser.
    const path = (points: Array<[number, number]>): string => {
      let p = `M${Math.round(x(span.from))},${Math.round(y(0))}`;
      let column = Number.NaN;
      for (const [t, n] of points) {
        const px = Math.round(x(t));
        p += px === column ? ` V${Math.round(y(n))}` : ` H${px} V${Math.round(y(n))}`;
        column = px;
      }
      return `${p} H${Math.round(x(span.to))}`;
    };
    const every = Math.max(1, Math.ceil(total / 10));
    const grid = Array.from({ length: Math.floor(total / every) + 1 }, (_, i) => {
      const at = Math.round(y(i * every));
      return (
        `<line x1="40" x2="740" y1="${at}" y2="${at}" stroke="#eef1f4"/>` +
        `<text x="34" y="${at + 4}" font-size="10" text-anchor="end" fill="#5d6876">${i * every}</text>`
      );
    });
    const title = ledger?.title === null || ledger === undefined ? '' : ` ${esc(ledger.title)}`;
    const stepsDone = ledger?.steps.filter((s) => s.state === 'done').length;
    const state = ledger === undefined ? 'no ledger on disk' : `${stepsDone} of ${ledger.steps.length} steps done now`;
    out.push(
      `<h3>Issue ${issue}${title}: ${state}</h3>`,
      `<svg class="prog ledger-progress" data-issue="${issue}" viewBox="0 0 760 140" role="img" ` +
        `aria-label="steps of issue ${issue} done over time">${grid.join('')}` +
        `<path d="${path(green)}" fill="none" stroke="#e0a21e" stroke-width="2"/>` +
        `<path d="${path(done)}" fill="none" stroke="#2e9e4f" stroke-width="2.5"/>` +
        '<text x="740" y="134" font-size="10" text-anchor="end" fill="#5d6876">orange: ticked (green committed) · ' +
        `green: refactored (step done) · ${formatDuration(span.to - span.from)}</text></svg>`,
    );
    const items = ticks
      .slice(-LAST_TICKS)
      .map((t) => `<tr>${time(t.at)}<td>${esc(t.action)}<td class="reason">${esc(t.title ?? '')}\n`);
    const shown = `${ticks.length > LAST_TICKS ? `the last ${LAST_TICKS} of ` : ''}${ticks.length} ledger events`;
    if (items.length > 0)
      out.push(`<details><summary>${shown}</summary><table><tbody>${items.join('')}</tbody></table></details>`);
  }
  return out.join('\n');
}

// Each round's builder answer and live proof evidence, as round-N.json keeps them.
function roundDetails(ball: BallRun): string {
  const shown = ball.rounds.filter((r) => r.answer !== undefined || r.live !== undefined);
  if (shown.length === 0) return '';
  const items = shown.map(({ round, answer, live }) => {
    const said =
      answer === undefined
        ? ''
        : `<div class="answer"><b>hypothesis:</b> ${esc(answer.hypothesis)}<br><b>move:</b> ${esc(answer.move)}</div>`;
    const proof =
      live === undefined
        ? ''
        : `<div class="live" data-live-sha256="${esc(live.sha256)}"><b>live proof:</b> ` +
          `${live.code === null ? 'no exit code' : `exit ${live.code}`}` +
          `${live.ms === null ? '' : ` in ${formatDuration(live.ms)}`}, ` +
          `${live.bytes === null ? '' : `${live.bytes} bytes, `}sha256 ${esc(live.sha256.slice(0, 12))}` +
          `${live.truncated ? ' (output cut)' : ''}${live.note === undefined ? '' : ` · ${esc(live.note)}`}` +
          `<pre>${esc(live.output)}</pre></div>`;
    return `<div class="round-detail" data-round="${round}"><span class="chip">r${round}</span>${said}${proof}</div>`;
  });
  const n = shown.length;
  const summary = `what the builder said and the live proof showed (${n} round${n === 1 ? '' : 's'})`;
  return `<details class="small rounds"><summary>${summary}</summary>${items.join('')}</details>`;
}

// A round on another machine's worker, while its engine runs and its record is not written yet.
function remoteLine(ball: BallRun, remote: RemoteRoundState | undefined): string {
  if (remote?.engineAlive !== true || ball.rounds.some((r) => r.round === remote.round && r.receipt !== null))
    return '';
  const phase = remote.phase === null ? '' : ` (${esc(remote.phase)})`;
  const what = remoteWords(remote.state, esc(remote.worker ?? '?'), phase, '');
  return `<div class="small remote" data-remote="${remote.state}">round ${remote.round}: ${what}</div>`;
}

const reviewer = (r: BallRun['reviews'][number]): string =>
  `${r.reviewer ?? 'jury'}${r.family === null ? '' : `/${r.family}`}`;

function ballCard(ball: BallRun, remote?: RemoteRoundState): string {
  const v = ball.receipt?.value ?? null;
  const chip = (r: BallRun['rounds'][number]): string =>
    `<span class="chip" title="round ${r.round}">r${r.round} ${r.receipt ?? '·'}</span>`;
  const rounds = ball.rounds.map(chip).join('');
  const passes = ball.reviews.filter((r) => r.value === 1).length;
  const reviews =
    ball.reviews.length === 0
      ? ''
      : `<div class="small">reviews: ${passes} of ${ball.reviews.length} pass ` +
        `(${ball.reviews.map((r) => esc(`${reviewer(r)}: ${r.verdict}`)).join(', ')})</div>`;
  return (
    `<div class="ball b${v ?? 'n'}" data-ball="${esc(ball.id)}" data-receipt="${v ?? ''}">` +
    `<div class="id">${esc(ball.id)}</div><div>${receiptBadge(v)} ` +
    `${ball.state === null ? '' : `<span class="small">${esc(ball.state)}</span>`}</div>` +
    (rounds === '' ? '' : `<div>${rounds}</div>`) +
    (ball.deps.length === 0 ? '' : `<div class="small">after: ${ball.deps.map(esc).join(', ')}</div>`) +
    (ball.receipt?.evidence ? `<div class="small reason">${esc(ball.receipt.evidence)}</div>` : '') +
    reviews +
    remoteLine(ball, remote) +
    roundDetails(ball) +
    (ball.merged === null ? '' : `<div class="small">merged ${esc(ball.merged.commit.slice(0, 12))}</div>`) +
    '</div>'
  );
}

export function renderSlices(view: ViewData): string {
  if (view.model.slices.length === 0) return '<p class="empty">No slice has run.</p>';
  const out: string[] = [];
  for (const slice of view.model.slices) {
    const record = view.sliceRecords.find((r) => r.id === slice.id);
    const counts = [1, 0, -1]
      .map((v) => `${slice.balls.filter((b) => b.receipt?.value === v).length} ${RECEIPT_TEXT[v]?.split(' ')[1]}`)
      .join(', ');
    const passed = record?.record === true ? ' · record.json written: the slice passed' : '';
    out.push(`<h3 class="slice-title">Slice ${esc(slice.id)}: ${slice.balls.length} balls (${counts})${passed}</h3>`);
    const waves = byWave(slice.balls);
    const keys = [...waves.keys()].sort((a, b) => (a === '?' ? 1 : b === '?' ? -1 : Number(a) - Number(b)));
    const card = (b: BallRun): string => ballCard(b, record?.balls.find((r) => r.id === b.id)?.remote);
    const columns = keys.map(
      (k) => `<div class="wave"><h4>wave ${esc(k)}</h4>${waves.get(k)!.map(card).join('')}</div>`,
    );
    out.push(`<div class="waves slice" data-slice="${esc(slice.id)}">${columns.join('')}</div>`);
    if (slice.aggregate.length > 0) {
      const reviews = slice.aggregate.map((r) => `${esc(reviewer(r))} ${receiptBadge(r.value)}`);
      out.push(`<p>Aggregate review: ${reviews.join(' ')}</p>`);
    }
  }
  return out.join('\n');
}

export function renderProblems(view: ViewData): string {
  const log = esc(view.eventsFile);
  const row = (where: string, what: string, tr = '<tr>'): string =>
    `${tr}<td>${where}</td><td class="reason">${what}</td></tr>`;
  const unknown = (kind: string): string => `an event of kind <b>${esc(kind)}</b>, which this report does not know`;
  const rows = [
    ...view.log.problems.map((p) => row(`${log}:${p.line}`, esc(p.message))),
    ...view.model.unknown.map((u) => row(`${log}:${u.line}`, unknown(u.event), '<tr class="unknown-kind">')),
    ...view.fileProblems.map((p) => row(esc(p.file), esc(p.message))),
  ];
  if (view.log.tornTail) rows.push(`<tr><td>${log}</td><td>${TORN}</td></tr>`);
  if (rows.length === 0) return '<p class="empty">Every line of the event log was read.</p>';
  return `<table class="problems"><tbody>${rows.join('')}</tbody></table>`;
}

// Every text from an event or a file goes through `esc`.
import type { TextParts } from '@leap/core';
import {
  clockTime as clockTimeExport,
  escapeHtml as escapeHtmlExport,
  byWave,
  formatDuration as formatDurationExport,
  RECEIPT_TEXT,
} from './_text.js';
import type { Span } from './_report-timeline.js';
import type { ViewData } from './collect-view.js';
import { flakyVerdicts, type BallRun, type LeafRun, type RunModel } from './fold-run.js';
import type { RemoteRoundState } from './read-state.js';

// Bound once, as in _report-timeline.ts: no getter of another chunk's exports per call in the bundle.
const clockTime = clockTimeExport;
const esc = escapeHtmlExport;
const formatDuration = formatDurationExport;

function receiptBadge(value: number | null): string {
  if (value === null) return '<span class="badge rn">no receipt</span>';
  return `<span class="badge r${value}">${RECEIPT_TEXT[String(value)] ?? String(value)}</span>`;
}

const LAST_TICKS = 100;

const time = (ms: number): string => `<td class="t">${Number.isFinite(ms) ? clockTime(ms) : ''}`;

/** Every verdict, with the revision each REJECT led to, pushed onto `out` a row at a time. */
export function renderVerdicts(model: RunModel, out: TextParts): void {
  if (model.verdicts.length === 0) {
    out.push('<p class="empty">No verdict yet.</p>');
    return;
  }
  const revisions = new Map<string, LeafRun[]>();
  for (const l of model.leaves) {
    if (l.actor !== 'developer' || (l.attempt ?? 1) <= 1) continue;
    const key = `${l.issue}\n${l.step}\n${l.phase}`;
    const list = revisions.get(key);
    if (list === undefined) revisions.set(key, [l]);
    else list.push(l);
  }
  out.push(
    '<table><thead><tr><th>time</th><th>issue</th><th>step</th><th>phase</th><th>verdict</th><th>reason</th><th>agent</th><th>then</th></tr></thead><tbody>',
  );
  for (const v of model.verdicts) {
    const revision =
      v.verdict === 'REJECT'
        ? revisions.get(`${v.issue}\n${v.step}\n${v.phase}`)?.find((l) => l.launchedAt >= v.at)
        : undefined;
    const next = revision === undefined ? '' : `revision: ${esc(revision.leaf)}`;
    out.push(
      `<tr class="verdict-row">${time(v.at)}<td>${v.issue ?? ''}<td class="reason">${esc(v.step ?? '')}<td>${esc(v.phase)}<td><span class="badge v-${esc(v.verdict)}">${esc(v.verdict)}</span><td class="reason">${esc(v.reason)}<td>${esc(v.agent ?? '')}<td>${next}\n`,
    );
  }
  out.push('</tbody></table>');
}

export function renderFlaky(model: RunModel): string {
  const flaky = flakyVerdicts(model);
  if (flaky.length === 0) return '';
  const rows = flaky.map(
    (v) =>
      `<tr class="flaky-row">${time(v.at)}<td>${esc(v.tests.join(', ') || '(no test named)')}<td>${v.issue ?? ''}<td class="reason">${esc(v.step ?? '')}<td>${esc(v.phase)}<td class="reason">${esc(v.reason)}\n`,
  );
  return `<h3 id="flaky">Flaky tests: passed once and failed once on the same tree</h3><table><thead><tr><th>time</th><th>test</th><th>issue</th><th>step</th><th>phase</th><th>reason</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Bails, stop requests, and fall-overs (a vendor ran dry, the next agent took the leaf). */
export function renderBailsAndStops(model: RunModel): string {
  const rows = [
    ...model.bails.map((b) => ({
      at: b.at,
      html: `<tr class="bail-row">${time(b.at)}<td>bail</td><td>${b.issue ?? ''}</td><td class="reason">${esc(b.step ?? '')}</td><td><b>${esc(b.cause)}</b> (${esc(b.class)})</td><td class="reason">${esc(b.detail ?? '')}</td></tr>`,
    })),
    ...model.fallovers.map((f) => ({
      at: f.at,
      html: `<tr class="fallover-row">${time(f.at)}<td>fall-over</td><td>${f.issue ?? ''}</td><td class="reason">${esc(f.slice === null ? (f.step ?? '') : `${f.slice}${f.ball === null ? '' : `/${f.ball}`}`)}</td><td><b>${esc(f.cause)}</b> (${esc(f.role)} ${esc(f.agent)} → ${f.next === null ? 'none left' : esc(f.next)})</td><td class="reason">${esc(`${f.leaf}: ${f.message}`)}</td></tr>`,
    })),
    ...model.stops.map((s) => ({
      at: s.at,
      html: `<tr class="stop-row">${time(s.at)}<td>stop</td><td>${s.issue ?? ''}</td><td></td><td><b>${esc(s.mode ?? '')}</b> ${esc(s.action)}</td><td>${s.leaf === null ? '' : `leaf ${esc(s.leaf)}`}</td></tr>`,
    })),
  ].sort((a, b) => a.at - b.at);
  if (rows.length === 0) return '<p class="empty">No bail, no stop, no fall-over.</p>';
  return `<table><thead><tr><th>time</th><th>what</th><th>issue</th><th>step</th><th>cause</th><th>detail</th></tr></thead><tbody>${rows.map((r) => r.html).join('')}</tbody></table>`;
}

/** Each issue's ledger progress over time: steps ticked (green) and refactored (done), as step lines. */
export function renderLedgerProgress(view: ViewData, span: Span): string {
  const issues = new Set<number>(view.ledgers.map((l) => l.issue));
  for (const t of view.model.ticks) if (t.issue !== null) issues.add(t.issue);
  if (issues.size === 0) return '<p class="empty">No ledger yet.</p>';
  const out: string[] = [];
  for (const issue of [...issues].sort((a, b) => a - b)) {
    const ledger = view.ledgers.find((l) => l.issue === issue);
    const ticks = view.model.ticks.filter((t) => t.issue === issue);
    const green: Array<[number, number]> = [];
    const done: Array<[number, number]> = [];
    let g = 0;
    let d = 0;
    for (const t of ticks) {
      if (t.action === 'tick') green.push([t.at, ++g]);
      if (t.action === 'clear-refactor-pending') done.push([t.at, ++d]);
    }
    const total = Math.max(ledger?.steps.length ?? 0, g, 1);
    const x = (t: number): number =>
      40 + Math.min(1, Math.max(0, (t - span.from) / Math.max(1, span.to - span.from))) * 700;
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
    const gridLines: string[] = [];
    for (let n = 0; n <= total; n += every)
      gridLines.push(
        `<line x1="40" x2="740" y1="${Math.round(y(n))}" y2="${Math.round(y(n))}" stroke="#eef1f4"/><text x="34" y="${Math.round(y(n)) + 4}" font-size="10" text-anchor="end" fill="#5d6876">${n}</text>`,
      );
    const title = ledger?.title === null || ledger === undefined ? '' : ` ${esc(ledger.title)}`;
    out.push(
      `<h3>Issue ${issue}${title}: ${ledger === undefined ? 'no ledger on disk' : `${ledger.steps.filter((s) => s.state === 'done').length} of ${ledger.steps.length} steps done now`}</h3>`,
    );
    out.push(
      `<svg class="prog ledger-progress" data-issue="${issue}" viewBox="0 0 760 140" role="img" aria-label="steps of issue ${issue} done over time">${gridLines.join('')}<path d="${path(green)}" fill="none" stroke="#e0a21e" stroke-width="2"/><path d="${path(done)}" fill="none" stroke="#2e9e4f" stroke-width="2.5"/><text x="740" y="134" font-size="10" text-anchor="end" fill="#5d6876">orange: ticked (green committed) · green: refactored (step done) · ${formatDuration(span.to - span.from)}</text></svg>`,
    );
    // The chart shows them all; the list keeps the last ones (the event log has every one).
    const items = ticks
      .slice(-LAST_TICKS)
      .map((t) => `<tr>${time(t.at)}<td>${esc(t.action)}<td class="reason">${esc(t.title ?? '')}\n`);
    const shown =
      ticks.length > LAST_TICKS
        ? `the last ${LAST_TICKS} of ${ticks.length} ledger events`
        : `${ticks.length} ledger events`;
    if (items.length > 0)
      out.push(`<details><summary>${shown}</summary><table><tbody>${items.join('')}</tbody></table></details>`);
  }
  return out.join('\n');
}

// Each round's builder answer (its one hypothesis and move) and live proof evidence, as round-N.json keeps them.
function roundDetails(ball: BallRun): string {
  const shown = ball.rounds.filter((r) => r.answer !== undefined || r.live !== undefined);
  if (shown.length === 0) return '';
  const items = shown.map((r) => {
    const answer =
      r.answer === undefined
        ? ''
        : `<div class="answer"><b>hypothesis:</b> ${esc(r.answer.hypothesis)}<br><b>move:</b> ${esc(r.answer.move)}</div>`;
    const live =
      r.live === undefined
        ? ''
        : `<div class="live" data-live-sha256="${esc(r.live.sha256)}"><b>live proof:</b> ${r.live.code === null ? 'no exit code' : `exit ${r.live.code}`}${r.live.ms === null ? '' : ` in ${formatDuration(r.live.ms)}`}, ${r.live.bytes === null ? '' : `${r.live.bytes} bytes, `}sha256 ${esc(r.live.sha256.slice(0, 12))}${r.live.truncated ? ' (output cut)' : ''}${r.live.note === undefined ? '' : ` · ${esc(r.live.note)}`}<pre>${esc(r.live.output)}</pre></div>`;
    return `<div class="round-detail" data-round="${r.round}"><span class="chip">r${r.round}</span>${answer}${live}</div>`;
  });
  return `<details class="small rounds"><summary>what the builder said and the live proof showed (${shown.length} round${shown.length === 1 ? '' : 's'})</summary>${items.join('')}</details>`;
}

// A round on another machine's worker, while its engine runs and its record is not written yet.
function remoteLine(ball: BallRun, remote: RemoteRoundState | undefined): string {
  if (
    remote === undefined ||
    !remote.engineAlive ||
    ball.rounds.some((r) => r.round === remote.round && r.receipt !== null)
  )
    return '';
  const what =
    remote.state === 'queued'
      ? 'queued: no worker has taken it'
      : remote.state === 'building'
        ? `building on worker ${esc(remote.worker ?? '?')}${remote.phase === null ? '' : ` (${esc(remote.phase)})`}`
        : `returned by worker ${esc(remote.worker ?? '?')}, the engine checking it`;
  return `<div class="small remote" data-remote="${remote.state}">round ${remote.round}: ${what}</div>`;
}

function ballCard(ball: BallRun, remote?: RemoteRoundState): string {
  const v = ball.receipt?.value ?? null;
  const rounds = ball.rounds
    .map(
      (r) => `<span class="chip" title="round ${r.round}">r${r.round} ${r.receipt === null ? '·' : r.receipt}</span>`,
    )
    .join('');
  const passes = ball.reviews.filter((r) => r.value === 1).length;
  const reviews =
    ball.reviews.length === 0
      ? ''
      : `<div class="small">reviews: ${passes} of ${ball.reviews.length} pass (${ball.reviews.map((r) => esc(`${r.reviewer ?? 'jury'}${r.family === null ? '' : `/${r.family}`}: ${r.verdict}`)).join(', ')})</div>`;
  return (
    `<div class="ball b${v ?? 'n'}" data-ball="${esc(ball.id)}" data-receipt="${v ?? ''}"><div class="id">${esc(ball.id)}</div>` +
    `<div>${receiptBadge(v)} ${ball.state === null ? '' : `<span class="small">${esc(ball.state)}</span>`}</div>` +
    (rounds === '' ? '' : `<div>${rounds}</div>`) +
    (ball.deps.length === 0 ? '' : `<div class="small">after: ${ball.deps.map(esc).join(', ')}</div>`) +
    (ball.receipt !== null && ball.receipt.evidence !== ''
      ? `<div class="small reason">${esc(ball.receipt.evidence)}</div>`
      : '') +
    reviews +
    remoteLine(ball, remote) +
    roundDetails(ball) +
    (ball.merged === null ? '' : `<div class="small">merged ${esc(ball.merged.commit.slice(0, 12))}</div>`) +
    '</div>'
  );
}

/** Each slice as its wave graph: a column per wave, a card per ball with its rounds and receipts. */
export function renderSlices(view: ViewData): string {
  if (view.model.slices.length === 0) return '<p class="empty">No slice has run.</p>';
  const out: string[] = [];
  for (const slice of view.model.slices) {
    const record = view.sliceRecords.find((r) => r.id === slice.id);
    const counts = [1, 0, -1]
      .map(
        (v) =>
          `${slice.balls.filter((b) => b.receipt?.value === v).length} ${RECEIPT_TEXT[String(v)]?.slice(String(v).length + 1)}`,
      )
      .join(', ');
    out.push(
      `<h3 class="slice-title">Slice ${esc(slice.id)}: ${slice.balls.length} balls (${counts})${record?.record === true ? ' · record.json written: the slice passed' : ''}</h3>`,
    );
    const waves = byWave(slice.balls);
    const keys = [...waves.keys()].sort((a, b) => (a === '?' ? 1 : b === '?' ? -1 : Number(a) - Number(b)));
    out.push(
      `<div class="waves slice" data-slice="${esc(slice.id)}">${keys.map((k) => `<div class="wave"><h4>wave ${esc(k)}</h4>${(waves.get(k) ?? []).map((b) => ballCard(b, record?.balls.find((r) => r.id === b.id)?.remote)).join('')}</div>`).join('')}</div>`,
    );
    if (slice.aggregate.length > 0) {
      out.push(
        `<p>Aggregate review: ${slice.aggregate.map((r) => `${esc(r.reviewer ?? 'jury')}${r.family === null ? '' : `/${esc(r.family)}`} ${receiptBadge(r.value)}`).join(' ')}</p>`,
      );
    }
  }
  return out.join('\n');
}

export function renderProblems(view: ViewData): string {
  const rows = [
    ...view.log.problems.map(
      (p) => `<tr><td>${esc(view.eventsFile)}:${p.line}</td><td class="reason">${esc(p.message)}</td></tr>`,
    ),
    ...view.model.unknown.map(
      (u) =>
        `<tr class="unknown-kind"><td>${esc(view.eventsFile)}:${u.line}</td><td class="reason">an event of kind <b>${esc(u.event)}</b>, which this report does not know</td></tr>`,
    ),
    ...view.fileProblems.map((p) => `<tr><td>${esc(p.file)}</td><td class="reason">${esc(p.message)}</td></tr>`),
  ];
  if (view.log.tornTail)
    rows.push(
      `<tr><td>${esc(view.eventsFile)}</td><td>the last line has no end yet (being written, or torn by a crash); not counted</td></tr>`,
    );
  if (rows.length === 0) return '<p class="empty">Every line of the event log was read.</p>';
  return `<table class="problems"><tbody>${rows.join('')}</tbody></table>`;
}

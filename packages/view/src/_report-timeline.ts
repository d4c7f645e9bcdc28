// A bar per leaf, a row per phase of each step or ball; verdicts as marks; bails and stops as lines across the run.
import { clockTime, escapeHtml as esc, formatDuration, formatUsd, truncate } from './_text.js';
import { STATUS_COLORS } from './_report-style.js';
import type { TextParts } from '@leap/core';
import { getOr, pushTo } from './_fold-leaves.js';
import type { LeafRun, RunModel, Verdict } from './fold-run.js';

export type Span = { from: number; to: number };

const LANE_PX = 18;
/** A lane of verdict marks above a row's bars, and a mark's width: closer marks go on lanes of their own. */
const MARK_PX = 16;
/** The narrowest bar, in pixels of the narrowest track: room for its word, whatever the leaf's length. */
const MIN_BAR_PX = 48;

const ACTOR_WORDS: Record<string, string> = {
  developer: 'dev',
  verifier: 'verify',
  planner: 'plan',
  builder: 'build',
  reviewer: 'review',
  juror: 'jury',
};
const VERDICT_ICONS: Record<string, string> = { PASS: '✓', REJECT: '✗', ERROR: '!', flaky: '~' };

/** A fraction of the track as a percentage, to three decimals (a 24,000-pixel track needs them). */
const percent = (fraction: number): number => Math.round(Math.min(1, Math.max(0, fraction)) * 100_000) / 1000;
/** Where `t` falls in `span`, from 0 to 1. */
export const along = (span: Span, t: number): number =>
  Math.min(1, Math.max(0, (t - span.from) / Math.max(1, span.to - span.from)));
const at = (span: Span, t: number): string => `${percent(along(span, t))}%`;

const isRevision = (run: LeafRun): boolean => run.attempt !== null && run.attempt > 1 && run.actor !== 'verifier';
const shownStop = (s: RunModel['stops'][number]): boolean => s.action !== 'cleared';

function statusClass(run: LeafRun): string {
  if (run.status === 'exited' && run.code !== null && run.code !== 0) return 'failed';
  return Object.hasOwn(STATUS_COLORS, run.status) ? run.status : 'lost';
}

type Group = { label: string; subs: Map<string, { label: string; rows: Map<string, LeafRun[]>; verdicts: Verdict[] }> };

const PHASE_ORDER = ['plan', 'red', 'green', 'refactor', 'build', 'review'];

function groupLeaves(model: RunModel): Group[] {
  const groups = new Map<string, Group>();
  const subOf = (gKey: string, gLabel: string, sKey: string, sLabel: string) => {
    const group = getOr(groups, gKey, () => ({ label: gLabel, subs: new Map() }));
    return getOr(group.subs, sKey, () => ({ label: sLabel, rows: new Map(), verdicts: [] }));
  };
  const placeOf = (issue: number | null, step: string | null, slice: string | null, ball: string | null) => {
    if (slice !== null)
      return subOf(`s\n${slice}`, `slice ${slice}`, ball ?? '', ball === null ? '(the slice)' : `ball ${ball}`);
    if (issue !== null)
      return subOf(`i\n${issue}`, `issue ${issue}`, step ?? '', step ?? '(no step: planning and the issue as a whole)');
    return subOf('o', 'other leaves', step ?? '', step ?? '(no issue, no step)');
  };
  for (const run of model.leaves)
    pushTo(placeOf(run.issue, run.step, run.slice, run.ball).rows, run.phase ?? run.actor ?? 'leaf', run);
  for (const v of model.verdicts) placeOf(v.issue, v.step, null, null).verdicts.push(v);
  return [...groups.values()];
}

/** The first lane whose last item ends by `start`, now taken until `end`. */
function freeLane(ends: number[], start: number, end: number): number {
  let lane = 0;
  while (lane < ends.length && (ends[lane] as number) > start) lane++;
  ends[lane] = end;
  return lane;
}

// Greedy lanes, packed as drawn: at least `least` ms wide, ending by `last`. The runs by launch, with their lanes.
function lanes(runs: LeafRun[], end: (r: LeafRun) => number, least: number, last: number): Array<[LeafRun, number]> {
  const ends: number[] = [];
  return [...runs]
    .sort((a, b) => a.launchedAt - b.launchedAt)
    .map((run) => {
      const start = Math.min(run.launchedAt, last - least);
      return [run, freeLane(ends, start, Math.max(end(run), start + least))];
    });
}

function barWord(run: LeafRun): string {
  const word = ACTOR_WORDS[run.actor ?? ''] ?? run.leaf.split('-')[0] ?? run.leaf;
  return run.attempt !== null && run.attempt > 1 ? `${word} ${run.attempt}` : word;
}

function barTitle(run: LeafRun): string {
  let title = `${run.leaf} · ${run.status}${run.code === null ? '' : ` ${run.code}`}`;
  if (run.durationMs !== null) title += ` · ${formatDuration(run.durationMs)}`;
  if (run.attempt !== null && run.attempt > 1) title += ` · attempt ${run.attempt}`;
  const u = run.usage;
  if (u !== null)
    title += ` · ${u.input_tokens ?? '?'} in / ${u.output_tokens ?? '?'} out tokens, ${formatUsd(u.cost_usd)}`;
  return title;
}

export function renderTimeline(model: RunModel, span: Span, now: number, out: TextParts): void {
  if (model.leaves.length === 0 && model.verdicts.length === 0)
    return void out.push('<p class="empty">No leaf has run yet.</p>');
  const end = (r: LeafRun): number => r.exitedAt ?? (r.status === 'running' ? now : r.launchedAt);
  // A long run gets a wider track (it scrolls sideways, its labels stay); bars never narrower than their word.
  const trackPx = Math.min(24_000, Math.max(900, model.leaves.length * 24));
  const length = Math.max(1, span.to - span.from);
  const least = (length * MIN_BAR_PX) / trackPx;
  const markGap = (length * MARK_PX) / trackPx;
  const ticks = Array.from({ length: 7 }, (_, i) => {
    const t = span.from + ((span.to - span.from) * i) / 6;
    const since = i === 0 ? '' : ` +${formatDuration(t - span.from)}`;
    return `<span style="left:${at(span, t)}">${clockTime(t)}${since}</span>`;
  });
  out.push(
    `<div class="tl" id="timeline-chart"><div class="tlin" style="min-width:calc(var(--lbl) + ${trackPx}px)">` +
      `<div class="axis"><div class="lbl"></div><div class="ticks">${ticks.join('')}</div></div>`,
  );
  for (const group of groupLeaves(model)) {
    const count = [...group.subs.values()].reduce((n, sub) => n + [...sub.rows.values()].flat().length, 0);
    const label = `${esc(group.label)} <span class="meta">${count} leaves</span>`;
    out.push(`\n<details class="grp" open><summary><span>${label}</span></summary>`);
    for (const sub of group.subs.values()) {
      out.push(`\n<div class="sub" title="${esc(sub.label)}"><span>${esc(sub.label)}</span></div>`);
      // The rows' phases, then any phase only a verdict has, in the order of a step's life.
      const ordered = [...sub.rows.keys()];
      for (const v of sub.verdicts) if (!ordered.includes(v.phase)) ordered.push(v.phase);
      ordered.sort((a, b) => rank(a) - rank(b));
      for (const phase of ordered) {
        const placed = lanes(sub.rows.get(phase) ?? [], end, least, span.from + length);
        const marks = sub.verdicts.filter((v) => v.phase === phase);
        // A mark closer than `markGap` to the last of a lane goes below it.
        const markEnds: number[] = [];
        const markLanes = marks.map((v) => freeLane(markEnds, v.at - markGap, v.at));
        const top = marks.length > 0 ? (Math.max(...markLanes) + 1) * MARK_PX : 2;
        const height = placed.reduce((most, [, lane]) => Math.max(most, lane + 1), 1) * LANE_PX + top;
        out.push(`\n<div class="row"><div class="lbl">${esc(phase)}</div><div class="trk" style="height:${height}px">`);
        for (const [run, lane] of placed) {
          const width = percent(Math.max(end(run) - run.launchedAt, least) / length);
          // A bar drawn wider than its leaf's time ends at the track's end at the latest.
          const latest = Math.round((100 - width) * 1000) / 1000;
          const left = Math.min(percent((run.launchedAt - span.from) / length), latest);
          const rev = isRevision(run) ? ' rev' : '';
          const place = `left:${left}%;width:${width}%;top:${lane * LANE_PX + top}px`;
          out.push(
            `<div class="bar${rev}" data-status="${statusClass(run)}" style="${place}" title="${esc(barTitle(run))}">` +
              `${esc(barWord(run))}</div>`,
          );
        }
        marks.forEach((v, i) => {
          const verdict = esc(v.verdict);
          const icon = VERDICT_ICONS[v.verdict] ?? '?';
          const place = `left:${at(span, v.at)};top:${(markLanes[i] as number) * MARK_PX}px`;
          out.push(
            `<div class="vm verdict-mark v-${verdict}" data-verdict="${verdict}" style="${place}" ` +
              `title="${verdict} (${esc(v.phase)}) ${clockTime(v.at)}: ${esc(truncate(v.reason, 120))}">${icon}</div>`,
          );
        });
        out.push('</div></div>');
      }
    }
    out.push('\n</details>');
  }
  out.push(`\n<div class="ov">${runLines(model, span)}</div></div></div>`);
}

function runLines(model: RunModel, span: Span): string {
  const line = (what: string, t: number, title: string, label: string): string =>
    `<div class="ln ${what}" style="left:${at(span, t)}" title="${esc(title)}"><span>${label}</span></div>`;
  const bails = model.bails.map((b) => {
    const title = `bail ${b.cause} (${b.class}) at ${clockTime(b.at)}${b.detail === null ? '' : `: ${b.detail}`}`;
    return line('run-mark bail', b.at, title, `bail: ${esc(b.cause)} (${esc(b.class)})`);
  });
  const stops = model.stops.filter(shownStop).map((s) => {
    const title = `stop ${s.mode ?? ''} ${s.action}${s.leaf === null ? '' : ` by ${s.leaf}`} at ${clockTime(s.at)}`;
    return line('stop run-mark', s.at, title, `stop ${esc(s.mode ?? '')} ${esc(s.action)}`);
  });
  return [...bails, ...stops].join('');
}

const rank = (phase: string): number => (PHASE_ORDER.includes(phase) ? PHASE_ORDER.indexOf(phase) : PHASE_ORDER.length);

export function renderLegend(model: RunModel): string {
  const used = new Set(model.leaves.map(statusClass));
  const items = Object.entries(STATUS_COLORS)
    .filter(([status]) => used.has(status))
    .map(([status, color]) => {
      const word = status === 'failed' ? 'exited non-zero' : status;
      return `<span><i class="sw" style="background:${color}"></i>${esc(word)}</span>`;
    });
  if (model.leaves.some(isRevision))
    items.push('<span><i class="sw" style="outline:2px dashed #e08a1e;outline-offset:-2px"></i>revision</span>');
  const verdicts = new Set<string>(model.verdicts.map((v) => v.verdict));
  for (const [verdict, icon] of Object.entries(VERDICT_ICONS)) {
    const words = verdict === 'flaky' ? 'flaky test' : verdict;
    if (verdicts.has(verdict)) items.push(`<span><i class="sw vm-key v-${verdict}">${icon}</i>${words}</span>`);
  }
  if (model.bails.length > 0) items.push('<span><i class="sw" style="border-left:2px solid #d33c3c"></i>bail</span>');
  if (model.stops.some(shownStop))
    items.push('<span><i class="sw" style="border-left:2px dashed #7b5cc4"></i>stop</span>');
  const words = new Set(
    model.leaves.map((l) => l.actor).filter((a): a is string => a !== null && Object.hasOwn(ACTOR_WORDS, a)),
  );
  if (words.size > 0)
    items.push(
      `<span class="meta">bars: ${[...words].map((a) => `${ACTOR_WORDS[a]} = ${a}`).join(', ')}; ` +
        'a number is the attempt; hover a bar or mark for its details</span>',
    );
  return `<div class="legend">${items.join('')}</div>`;
}

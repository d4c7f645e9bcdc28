// No script, no network (the Content-Security-Policy forbids both); every text from the run escaped.
import { isoTimestamp, type TextParts } from '@leap/core';
import { escapeHtml as esc, formatDuration, formatTokens, formatUsd } from './_text.js';
import { REPORT_CSS } from './_report-style.js';
import * as sections from './_report-sections.js';
import { renderLegend, renderTimeline, type Span } from './_report-timeline.js';
import { breakDownCost, nothingReported, sumUsage, type CostRow, type CostTotal } from './cost.js';
import type { ViewData } from './collect-view.js';
import { flakyVerdicts, stoppedRuns } from './fold-run.js';

const gap = (n: number, what = 'unreported'): string => (n > 0 ? ` <span class="meta">(${n} ${what})</span>` : '');
const costCells = (t: CostTotal): string =>
  `<td class="n">${t.leaves}</td><td class="n">${formatTokens(t.input_tokens)}${gap(t.unreported.input_tokens)}</td>` +
  `<td class="n">${formatTokens(t.output_tokens)}${gap(t.unreported.output_tokens)}</td>` +
  `<td class="n">${formatUsd(t.cost_usd)}${gap(t.unreported.cost_usd)}${gap(t.estimated, 'estimated')}</td>`;
const costHead = (id: string, what: string): string =>
  `<table class="cost" id="${id}"><thead><tr><th>${what}</th><th class="n">leaves</th><th class="n">input tokens</th>` +
  '<th class="n">output tokens</th><th class="n">cost</th></tr></thead><tbody>';

function costTable(title: string, rows: CostRow[], label: (r: CostRow) => string, id: string): string {
  if (rows.length === 0) return '';
  const body = rows.map((r) => `<tr><td class="reason">${label(r)}</td>${costCells(r.total)}</tr>`).join('');
  return `<h3>${title}</h3>${costHead(id, title.replace(/^Per /, ''))}${body}</tbody></table>`;
}

function renderCost(view: ViewData, out: TextParts): void {
  const { usage } = view.model;
  if (usage.length === 0)
    return void out.push('<p class="empty">No usage event: no agent leaf has reported tokens or cost yet.</p>');
  const cost = breakDownCost(usage);
  if (nothingReported(cost.total)) {
    const agents = [...new Set(usage.map((u) => u.agent ?? '?'))].map(esc).join(', ');
    const none = `Tokens and cost: not reported by these agents (${agents}), for any of the ${usage.length} leaves.`;
    return void out.push(`<p class="empty" id="cost-none">${none}</p>`);
  }
  out.push(
    `${costHead('cost-total', 'the whole log')}<tr><td>all leaves</td>${costCells(cost.total)}</tr></tbody></table>`,
  );
  out.push(`\n${costTable('Per issue', cost.byIssue, (r) => `issue ${r.issue}`, 'cost-issue')}`);
  out.push(`\n${costTable('Per step', cost.byStep, (r) => `issue ${r.issue}: ${esc(r.step ?? '')}`, 'cost-step')}`);
  out.push(`\n${costTable('Per slice', cost.bySlice, (r) => `slice ${esc(r.slice ?? '')}`, 'cost-slice')}`);
  // One row per leaf: the end tags HTML lets a table leave out are left out.
  out.push(
    `\n<details${usage.length <= 50 ? ' open' : ''}><summary>Per leaf (${usage.length})</summary>` +
      '<table class="cost" id="cost-leaf"><thead><tr><th>leaf</th><th>agent</th><th>model</th><th>of</th>' +
      '<th class="n">input tokens</th><th class="n">output tokens</th><th class="n">cost</th></tr></thead><tbody>',
  );
  for (const u of usage) {
    const of = u.slice !== null ? `slice ${esc(u.slice)}` : u.issue !== null ? `issue ${u.issue}` : '';
    out.push(
      `<tr><td>${esc(u.leaf)}<td>${esc(u.agent ?? '?')}<td>${esc(u.model ?? '?')}<td>${of}` +
        `<td class="n">${formatTokens(u.input_tokens)}<td class="n">${formatTokens(u.output_tokens)}` +
        `<td class="n">${formatUsd(u.cost_usd)}${u.cost_estimated ? ' <span class="meta">(estimated)</span>' : ''}\n`,
    );
  }
  out.push('</tbody></table></details>');
}

/** The report's Content-Security-Policy: nothing loads or runs but its own inline style and data images. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Pushed onto `out` in order, written as it comes: a long run's report is never one string in memory. */
export function renderReport(view: ViewData, out: TextParts): void {
  const { model } = view;
  const from = model.firstAt ?? view.now;
  // A loop, not Math.max(...ends): a spread of a long log's leaves would overflow the stack.
  let to = Math.max(from + 1, model.lastAt ?? from);
  for (const l of model.leaves) to = Math.max(to, l.exitedAt ?? (l.status === 'running' ? view.now : l.launchedAt));
  const span: Span = { from, to };
  const verdictCount = (v: string): number => model.verdicts.filter((x) => x.verdict === v).length;
  const total = sumUsage(model.usage);
  const silent = total.leaves > 0 && nothingReported(total) ? 'not reported by these agents' : 'not reported';
  const unreported = total.unreported.cost_usd > 0 ? ` (+${total.unreported.cost_usd} leaves unreported)` : '';
  const estimated = total.estimated > 0 ? ` (${total.estimated} estimated from agents-file prices)` : '';
  const tokens = `${formatTokens(total.input_tokens)} in / ${formatTokens(total.output_tokens)} out`;
  const stopped = [...stoppedRuns(model)].map(([issue, s]) => `issue ${issue} (${s.mode})`);
  const flaky = flakyVerdicts(model).length;
  const cards = [
    ['leaves', String(model.leaves.length)],
    ['time', model.firstAt === null ? '-' : formatDuration(span.to - span.from)],
    ['verdicts', `${verdictCount('PASS')} pass · ${verdictCount('REJECT')} reject · ${verdictCount('ERROR')} error`],
    ['revisions', String(model.leaves.filter((l) => l.actor === 'developer' && (l.attempt ?? 1) > 1).length)],
    ['bails', String(model.bails.length)],
    ['fall-overs', String(model.fallovers.length)],
    ['sandbox', sandboxCard(model.leaves)],
    ['stops', String(model.stops.filter((s) => s.action !== 'cleared').length)],
    ...(stopped.length === 0 ? [] : [['stopped', stopped.join(', ')]]),
    ...(flaky === 0 ? [] : [['flaky tests', String(flaky)]]),
    ['cost', total.cost_usd === null ? silent : `${formatUsd(total.cost_usd)}${unreported}${estimated}`],
    ['tokens', total.input_tokens === null && total.output_tokens === null ? silent : tokens],
  ].map(([k, v]) => `<div class="card"><span class="meta">${k}</span><b>${esc(v ?? '')}</b></div>`);
  const problems = model.problems.length + model.unknown.length + view.fileProblems.length;
  const when =
    model.firstAt === null
      ? 'no events yet'
      : `${isoTimestamp(span.from).replace('T', ' ').slice(0, 19)}Z to ${isoTimestamp(span.to).slice(11, 19)}Z`;
  out.push(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>leap report: ${esc(view.repo)}</title>
<style>${REPORT_CSS}</style></head>
<body>
<header><h1>leap report</h1><p class="meta">${esc(view.repo)} · ${when} · ${view.log.events} events\
${problems > 0 ? ` · <a href="#problems" class="warn">${problems} problems</a>` : ''}</p>
<nav><a href="#timeline">Timeline</a><a href="#verdicts">Verdicts</a><a href="#bails">Bails, stops, fall-overs</a>\
<a href="#ledgers">Ledgers</a><a href="#slices">Slices</a><a href="#cost">Tokens and cost</a>\
<a href="#problems">Problems</a></nav>
<div class="cards" id="summary">${cards.join('')}</div></header>
<main>
<section id="timeline"><h2>Timeline</h2>${renderLegend(model)}`);
  renderTimeline(model, span, view.now, out);
  out.push('</section>\n<section id="verdicts"><h2>Verdicts and revisions</h2>');
  sections.renderVerdicts(model, out);
  out.push(sections.renderFlaky(model));
  out.push(`</section>
<section id="bails"><h2>Bails, stops and fall-overs</h2>${sections.renderBailsAndStops(model)}</section>
<section id="ledgers"><h2>Ledger progress</h2>${sections.renderLedgerProgress(view, span)}</section>
<section id="slices"><h2>Slices: waves and receipts</h2>${sections.renderSlices(view)}</section>
<section id="cost"><h2>Tokens and cost</h2>`);
  renderCost(view, out);
  out.push(`</section>
<section id="problems"><h2>Problems</h2>${sections.renderProblems(view)}</section>
</main></body></html>
`);
}

function sandboxCard(leaves: ViewData['model']['leaves']): string {
  const off = leaves.filter((l) => l.sandbox === 'off').length;
  const on = leaves.filter((l) => l.sandbox === 'bwrap').length;
  if (off === 0) return on === 0 ? 'not recorded' : `all ${on} leaves sandboxed`;
  return `${off} of ${leaves.length} leaves unsandboxed`;
}

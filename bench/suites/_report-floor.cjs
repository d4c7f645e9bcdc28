// The least a report of the same content can cost: a plain script, no checks, no abstraction, that
// reads the log, pairs each launch with its exit, and writes the elements `leap report` writes for it:
// a bar per leaf with its title (status, code, duration, tokens, cost), grouped by issue, step and
// phase in lanes; a diamond per verdict with its reason; a row per verdict; the ledger's last ticks;
// cost per issue, per step and per leaf. Every text from the log escaped; what the issue asks of bad input
// too: a malformed line, or one without an event or a time, listed with its number and skipped, and kinds
// it does not know listed. Usage: node FILE LOG OUT
const fs = require('node:fs');
const [log, outFile] = process.argv.slice(2);
const esc = (s) => (/[&<>"']/.test(s) ? s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`) : s);
const tokens = (n) =>
  n == null ? '?' : n < 1000 ? String(n) : `${Math.floor(n / 1000)},${String(n % 1000).padStart(3, '0')}`;
const money = (n) => (n == null ? '?' : `$${n.toFixed(2)}`);
const time = (ms) => new Date(ms).toISOString().slice(11, 19);
const leaves = [];
const verdicts = [];
const ticks = [];
const usage = [];
const open = new Map();
const problems = [];
let number = 0;
let from = Infinity;
let to = -Infinity;
for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
  number++;
  if (line === '') continue;
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    problems.push(`${number}: not JSON`);
    continue;
  }
  const at = Date.parse(e.ts);
  if (typeof e.event !== 'string' || Number.isNaN(at)) {
    problems.push(`${number}: no event or time`);
    continue;
  }
  if (at < from) from = at;
  if (at > to) to = at;
  if (e.event === 'launch') {
    const run = {
      leaf: e.leaf,
      issue: e.issue,
      step: e.step,
      phase: e.phase,
      at,
      end: null,
      status: 'running',
      code: null,
      usage: null,
    };
    leaves.push(run);
    open.set(e.leaf, run);
  } else if (e.event === 'exit') {
    const run = open.get(e.leaf);
    if (run) Object.assign(run, { end: at, status: e.status, code: e.code });
  } else if (e.event === 'usage') {
    const run = open.get(e.leaf);
    usage.push(e);
    if (run) run.usage = e;
  } else if (e.event === 'verdict') verdicts.push({ ...e, at });
  else if (e.event === 'tick') ticks.push({ ...e, at });
  else problems.push(`${number}: an event of kind ${esc(e.event)}`);
}
const pct = (t) => Math.round(((t - from) / (to - from)) * 100000) / 1000;
const out = ['<!doctype html><html><head><meta charset="utf-8"><title>report</title></head><body><div class="tl">'];
const groups = new Map();
for (const run of leaves) {
  const key = `${run.issue}\n${run.step}\n${run.phase}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(run);
}
const marks = new Map();
for (const v of verdicts) {
  const key = `${v.issue}\n${v.step}\n${v.phase}`;
  if (!marks.has(key)) marks.set(key, []);
  marks.get(key).push(v);
}
for (const [key, runs] of groups) {
  const [issue, step, phase] = key.split('\n');
  out.push(
    `<div class="sub">issue ${issue}: ${esc(step)}</div><div class="row"><div class="lbl">${esc(phase)}</div><div class="trk">`,
  );
  const ends = [];
  for (const run of runs) {
    let lane = 0;
    while (lane < ends.length && ends[lane] > run.at) lane++;
    ends[lane] = run.end ?? run.at;
    const u = run.usage;
    const title = `${run.leaf} · ${run.status} ${run.code} · ${((run.end - run.at) / 1000).toFixed(1)}s${u ? ` · ${u.input_tokens} in / ${u.output_tokens} out tokens, ${money(u.cost_usd)}` : ''}`;
    out.push(
      `<div class="bar" data-status="${run.status}" style="left:${pct(run.at)}%;width:${Math.max(0.4, pct(run.end ?? run.at) - pct(run.at))}%;top:${lane * 16}px" title="${esc(title)}">${esc(run.leaf)}</div>`,
    );
  }
  for (const v of marks.get(key) ?? [])
    out.push(
      `<div class="vm v-${v.verdict}" style="left:${pct(v.at)}%" title="${v.verdict} (${esc(v.phase)}) ${time(v.at)}: ${esc(v.reason.slice(0, 120))}"></div>`,
    );
  out.push('</div></div>');
}
out.push('</div><table>');
for (const v of verdicts)
  out.push(
    `<tr class="verdict-row"><td class="t">${time(v.at)}<td>${v.issue}<td>${esc(v.step)}<td>${esc(v.phase)}<td>${v.verdict}<td>${esc(v.reason)}<td>${esc(v.agent ?? '')}\n`,
  );
out.push('</table><table>');
for (const t of ticks.slice(-100)) out.push(`<tr><td>${time(t.at)}<td>${esc(t.action)}<td>${esc(t.title ?? '')}\n`);
out.push('</table>');
const sums = (key) => {
  const by = new Map();
  for (const u of usage) {
    const k = key(u);
    const s = by.get(k) ?? { n: 0, i: 0, o: 0, c: 0 };
    s.n++;
    s.i += u.input_tokens ?? 0;
    s.o += u.output_tokens ?? 0;
    s.c += u.cost_usd ?? 0;
    by.set(k, s);
  }
  for (const [k, s] of by)
    out.push(
      `<tr><td class="reason">${esc(String(k))}<td class="n">${s.n}<td class="n">${tokens(s.i)}<td class="n">${tokens(s.o)}<td class="n">${money(s.c)}\n`,
    );
};
out.push('<table>');
sums((u) => `issue ${u.issue}`);
out.push('</table><table>');
sums((u) => `issue ${u.issue}: ${u.step}`);
out.push('</table><table>');
for (const u of usage)
  out.push(
    `<tr><td>${esc(u.leaf)}<td>${esc(u.agent ?? '?')}<td>${esc(u.model ?? '?')}<td>issue ${u.issue}<td class="n">${tokens(u.input_tokens)}<td class="n">${tokens(u.output_tokens)}<td class="n">${money(u.cost_usd)}\n`,
  );
out.push(`</table><table>${problems.map((p) => `<tr><td>${p}\n`).join('')}</table></body></html>\n`);
fs.writeFileSync(outFile, out.join(''));

// `leap report` in process: the file it writes from recorded runs, what it holds, what it escapes,
// its size for a long run, and bad input (no log, bad arguments, a path it cannot write).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError, UsageError } from '@leap/core';
import { cleanupTempDirs } from '@leap/test-utils';
import { reportMain } from '../src/report-cli.js';
import { escapeHtml } from '../src/_text.js';
import { captureIo, cleanEnv, eventLine, fixture, repoWith } from './helpers.js';
// @ts-expect-error a plain ES module shared with the bench
import { bigLog, ledgerText } from './fixtures/big-log.mjs';

async function report(
  cwd: string,
  args: string[] = [],
  env = cleanEnv(),
): Promise<{ code: number; out: string; html: string; file: string }> {
  const c = captureIo(cwd, env);
  const code = await reportMain(args, c.io);
  const file = c.out().trim().startsWith('{') ? (JSON.parse(c.out()) as { file: string }).file : c.out().trim();
  return { code, out: c.out(), html: readFileSync(file, 'utf8'), file };
}
const count = (html: string, needle: string): number => html.split(needle).length - 1;

// ---
const content = suite('leap report: what the file holds');
content.after(cleanupTempDirs);

content(
  "a recorded demo run: one bar per leaf, the verdicts as marks and rows, the revision, the ledger's progress; no script, no URL",
  async () => {
    const repo = repoWith({
      '.tdd/events.jsonl': fixture('demo.jsonl'),
      '.tdd/issue-1.md': `# Slugify step titles\n\n## Steps\n\n- [x] Lowercase the words and join them with dashes\n- [x] Drop characters like ' " $ \` that are not letters or digits\n`,
    });
    const r = await report(repo);
    assert.is(r.code, 0);
    assert.is(r.file, join(repo, '.tdd', 'leap-report.html'));
    assert.is(count(r.html, 'class="bar'), 20);
    assert.is(count(r.html, 'class="vm verdict-mark'), 7);
    assert.is(count(r.html, 'data-verdict="REJECT"'), 1);
    assert.is(count(r.html, '<tr class="verdict-row">'), 7);
    assert.match(r.html, /revision: develop-green-2/);
    assert.is(count(r.html, ' rev"'), 1);
    assert.is(count(r.html, 'class="prog ledger-progress" data-issue="1"'), 1);
    assert.match(r.html, /Issue 1 Slugify step titles: 2 of 2 steps done now/);
    assert.match(r.html, /Drop characters like &#39; &quot; \$ ` that are not letters or digits/);
    assert.ok(!/<script/i.test(r.html), 'no script');
    assert.ok(!/(?:src|href)="(?!#)/.test(r.html), 'nothing to fetch: every link is in the page');
    assert.ok(!/https?:\/\//.test(r.html));
    assert.match(r.html, /Content-Security-Policy" content="default-src 'none'/);
    assert.match(r.html, /No usage event/);
    assert.match(r.html, /Every line of the event log was read\./);
  },
);

content(
  "a slice: the wave graph with each ball's receipts and rounds; cost per leaf and per slice with the unreported gaps",
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('slice.jsonl'), '.leap/split-parser/record.json': '{}' });
    const r = await report(repo, ['--out', 'out/r.html']);
    assert.is(r.file, join(repo, 'out/r.html'));
    assert.is(count(r.html, '<div class="wave">'), 2);
    assert.match(r.html, /<div class="ball b1" data-ball="lexer" data-receipt="1">/);
    assert.match(r.html, /<div class="ball b-1" data-ball="docs" data-receipt="-1">/);
    assert.match(r.html, /<div class="ball bn" data-ball="cli" data-receipt="">/);
    assert.match(r.html, /title="round 2">r2 1</);
    assert.match(r.html, /reviews: 2 of 2 pass/);
    assert.match(r.html, /record\.json written: the slice passed/);
    assert.match(r.html, /Aggregate review: jury <span class="badge r-1">-1 refused/);
    assert.match(
      r.html,
      /<table class="cost" id="cost-slice">.*slice split-parser<\/td><td class="n">5<\/td><td class="n">49,000 <span class="meta">\(1 unreported\)<\/span>/s,
    );
    assert.is(count(r.html.split('id="cost-leaf"')[1] ?? '', '<tr><td>'), 5);
    assert.match(
      r.html,
      /<td>review-lexer-google<td>gemini<td>\?<td>slice split-parser<td class="n">\?<td class="n">\?<td class="n">\?\n/,
    );
  },
);

content(
  'usage with nulls per issue and step, a killed leaf, a bail and stops as lines across the timeline',
  async () => {
    const log =
      fixture('usage-nulls.jsonl') +
      JSON.stringify({
        ts: '2026-11-30T11:20:00.000Z',
        event: 'stop',
        issue: 4,
        step: null,
        skill_commit: null,
        mode: 'now',
        action: 'requested',
      }) +
      '\n';
    const repo = repoWith({ '.tdd/events.jsonl': log });
    const r = await report(repo, ['--json']);
    const summary = JSON.parse(r.out) as Record<string, unknown>;
    assert.equal({ ...summary, bytes: 0 }, { file: r.file, bytes: 0, events: 12, leaves: 3, problems: 0 });
    assert.is(summary.bytes, Buffer.byteLength(r.html));
    assert.match(r.html, /data-status="killed-timeout"/);
    assert.match(r.html, /<span>bail: cost-budget \(process\)<\/span>/);
    assert.match(r.html, /<span>stop now requested<\/span>/);
    assert.match(
      r.html,
      /<tr class="bail-row">.*<b>cost-budget<\/b> \(process\).*spent \$0\.51 of --max-cost 0\.50 on develop-red/s,
    );
    assert.match(r.html, /id="cost-step".*issue 4: Parse &quot;quoted&quot; \$\(x\) `words`/s);
    assert.match(r.html, /<b>\$0\.51 \(\+2 leaves unreported\)<\/b>/);
  },
);

content(
  'bad lines and unknown kinds are listed with their numbers in Problems, never a crash; a torn last line noted',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('malformed.jsonl') + fixture('unknown-kind.jsonl') });
    const r = await report(repo);
    assert.is(r.code, 0);
    assert.match(
      r.html,
      /events\.jsonl:2<\/td><td class="reason">expected one JSON event, got &quot;this is not json&quot;; skipped/,
    );
    assert.match(
      r.html,
      /<tr class="unknown-kind"><td>[^<]*events\.jsonl:9<\/td><td class="reason">an event of kind <b>frobnicate<\/b>/,
    );
    assert.is(count(r.html, 'class="unknown-kind"'), 3);
    assert.match(r.html, /class="warn">9 problems</);
    const torn = repoWith({ '.tdd/events.jsonl': fixture('torn-tail.jsonl') });
    assert.match((await report(torn)).html, /the last line has no end yet/);
    const empty = repoWith({ '.tdd/events.jsonl': '' });
    const e = await report(empty);
    assert.match(e.html, /No leaf has run yet\./);
    assert.match(e.html, /no events yet · 0 events/);
  },
);

content(
  "a ball's rounds show the builder's answer and the live proof's evidence from round-N.json, escaped",
  async () => {
    const evil = '</pre><script>window.__pwned=1</script>';
    const round = (n: number, extra: Record<string, unknown>) =>
      JSON.stringify({ slice: 'live', ball: 'cli', round: n, receipt: n === 2 ? 1 : null, reason: 'r', ...extra });
    const repo = repoWith({
      '.tdd/events.jsonl': fixture('slice.jsonl'),
      '.leap/live/run.json': JSON.stringify({ slice: 'live', balls: [{ id: 'cli', deps: [], wave: 0 }] }),
      '.leap/live/cli/round-1.json': round(1, {
        answer: { hypothesis: 'the flag is parsed twice', move: `drop the second parse ${evil}` },
      }),
      '.leap/live/cli/round-2.json': round(2, {
        answer: { hypothesis: 'h2', move: 'm2' },
        live: { code: 0, ms: 1500, sha256: 'a'.repeat(64), bytes: 12, truncated: true, output: `usage: cli ${evil}\n` },
      }),
      '.leap/live/cli/result.json': JSON.stringify({ receipt: 1, reason: 'passed' }),
    });
    const r = await report(repo);
    assert.is(r.code, 0);
    assert.is(count(r.html, 'class="round-detail"'), 2);
    assert.match(
      r.html,
      /<b>hypothesis:<\/b> the flag is parsed twice<br><b>move:<\/b> drop the second parse &lt;\/pre&gt;&lt;script&gt;/,
    );
    assert.match(
      r.html,
      new RegExp(
        `data-live-sha256="${'a'.repeat(64)}"><b>live proof:</b> exit 0 in [^,]+, 12 bytes, sha256 aaaaaaaaaaaa \\(output cut\\)<pre>usage: cli &lt;/pre&gt;`,
      ),
    );
    assert.ok(!r.html.includes('<script>window'), 'no script from a record');
  },
);

content.run();

// ---
const escaping = suite('leap report: every text from the run is escaped');
escaping.after(cleanupTempDirs);

escaping('a title, reason, leaf name, ball id or agent holding markup shows as text', async () => {
  const evil = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">\'"&amp;';
  const ts = (s: number) => new Date(Date.parse('2026-11-30T10:00:00Z') + s * 1000).toISOString();
  const events = [
    {
      ts: ts(0),
      event: 'launch',
      issue: 1,
      step: evil,
      skill_commit: null,
      leaf: `develop-red`,
      actor: 'developer',
      phase: 'red',
      attempt: 1,
      pid: 1,
      cmd: [evil],
      run: 'a',
    },
    {
      ts: ts(5),
      event: 'exit',
      issue: 1,
      step: evil,
      skill_commit: null,
      leaf: 'develop-red',
      code: 0,
      status: evil,
      duration_ms: 5000,
      run: 'a',
    },
    {
      ts: ts(6),
      event: 'usage',
      issue: 1,
      step: evil,
      skill_commit: null,
      leaf: 'develop-red',
      agent: evil,
      family: evil,
      model: evil,
      input_tokens: 1,
      output_tokens: 2,
      cost_usd: 0.5,
    },
    { ts: ts(7), event: 'verdict', issue: 1, step: evil, skill_commit: null, phase: evil, verdict: evil, reason: evil },
    { ts: ts(8), event: 'bail', issue: 1, step: evil, skill_commit: null, cause: evil, class: evil, message: evil },
    {
      ts: ts(9),
      event: 'receipt',
      issue: null,
      step: null,
      skill_commit: null,
      slice: evil,
      ball: evil,
      value: 1,
      candidate: evil,
      evidence: evil,
    },
    { ts: ts(10), event: evil, issue: 1 },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
  const repo = repoWith({
    '.tdd/events.jsonl': `${events}\n`,
    '.tdd/issue-1.md': `# ${evil}\n\n## Steps\n\n- [ ] ${evil}\n`,
  });
  const r = await report(repo);
  assert.ok(!r.html.includes('<script>window'), 'no script from the run');
  assert.ok(!r.html.includes('<img'), 'no element from the run');
  assert.ok(!r.html.includes('onerror="'), 'no attribute from the run');
  assert.ok(count(r.html, escapeHtml('<script>window.__pwned=1</script>')) >= 10);
  // Attributes are quoted with " and every " inside is escaped: no value can end one early.
  for (const attr of r.html.match(/ [a-z-]+="[^"]*"/g) ?? []) assert.ok(!attr.includes('<'), attr);
});

escaping.run();

// ---
const big = suite('leap report: a run of 500 leaves');
big.after(cleanupTempDirs);

big('500 bars, grouped by issue, step and phase, no two overlapping in a lane; the file stays small', async () => {
  const { lines, ledgers } = bigLog(500) as { lines: string[]; ledgers: Record<string, string[]> };
  const files: Record<string, string> = { '.tdd/events.jsonl': lines.join('') };
  for (const [issue, titles] of Object.entries(ledgers)) files[`.tdd/issue-${issue}.md`] = ledgerText(issue, titles);
  const repo = repoWith(files);
  const r = await report(repo);
  assert.is(count(r.html, 'class="bar'), 500);
  assert.is(count(r.html, '<details class="grp" open>'), 4);
  assert.ok(Buffer.byteLength(r.html) < 600_000, `${Buffer.byteLength(r.html)} bytes`);
  const rows = r.html.split('<div class="row">').slice(1);
  for (const row of rows) {
    const bars = [...row.matchAll(/left:([\d.]+)%;width:([\d.]+)%;top:(\d+)px/g)].map((m) => ({
      left: Number(m[1]),
      right: Number(m[1]) + Number(m[2]),
      top: m[3],
    }));
    for (const a of bars)
      for (const b of bars)
        if (a !== b && a.top === b.top)
          assert.ok(a.right <= b.left + 0.001 || b.right <= a.left + 0.001, 'bars of one lane overlap');
  }
  assert.is(count(r.html, 'class="prog ledger-progress"'), 3);
});

big(
  'a row whose leaves the log names out of launch order (an exit with no launch) is laid out by launch: the earlier bar keeps the first lane',
  async () => {
    const ev = (ts: string, fields: { event: string } & Record<string, unknown>): string =>
      eventLine({ ts: `2026-11-30T12:00:${ts}.000Z`, issue: 1, step: 'one step', ...fields });
    const repo = repoWith({
      '.tdd/events.jsonl':
        ev('10', { event: 'launch', leaf: 'late', run: 'r1' }) +
        ev('20', { event: 'exit', leaf: 'late', run: 'r1', code: 0, status: 'exited', duration_ms: 10_000 }) +
        ev('22', { event: 'exit', leaf: 'early', run: 'r2', code: 0, status: 'exited', duration_ms: 20_000 }),
    });
    const r = await report(repo);
    const tops = Object.fromEntries(
      [...r.html.matchAll(/top:(\d+)px" title="[^"]*">(early|late)</g)].map((m) => [m[2], Number(m[1])]),
    );
    assert.equal(tops, { early: 2, late: 20 }, 'launched at :02, "early" is laid first though the log names it second');
  },
);

big.run();

// ---
const bad = suite('leap report: bad input');
bad.after(cleanupTempDirs);

bad('no event log: exit 2 naming the file, nothing written', async () => {
  const repo = repoWith();
  try {
    await report(repo);
    assert.unreachable();
  } catch (error) {
    assert.ok(error instanceof LeapError && error.exitCode === 2);
    assert.is(
      (error as Error).message,
      `no event log at ${join(repo, '.tdd', 'events.jsonl')}: nothing has run in this repository, so there is nothing to report`,
    );
  }
  assert.ok(!existsSync(join(repo, '.tdd')));
});

bad(
  '--help; an unknown option, an argument, an empty --out: usage errors; an unwritable --out names the path',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('demo.jsonl'), afile: 'x' });
    const c = captureIo(repo);
    assert.is(await reportMain(['--help'], c.io), 0);
    assert.match(c.out(), /^Usage: leap report \[--dir DIR\] \[--out FILE\] \[--json\]$/m);
    assert.match(c.out(), /^Exit codes:\n {2}0 {2}written/m);
    for (const args of [['--nope'], ['x.html'], ['--out', '']]) {
      try {
        await reportMain(args, captureIo(repo).io);
        assert.unreachable(args.join(' '));
      } catch (error) {
        assert.ok(error instanceof UsageError && error.exitCode === 2, String(error));
      }
    }
    try {
      await reportMain(['--out', 'afile/r.html'], captureIo(repo).io);
      assert.unreachable();
    } catch (error) {
      assert.ok(error instanceof LeapError && error.exitCode === 2);
      assert.match((error as Error).message, new RegExp(`^cannot write the report to ${join(repo, 'afile/r.html')}: `));
    }
    assert.equal(readdirSync(repo).sort(), ['.git', '.tdd', 'README.md', 'afile']);
    writeFileSync(join(repo, 'ok'), '');
  },
);

bad.run();

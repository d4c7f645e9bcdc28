// `leap report` opened in a real browser (Debian's chromium, driven by playwright-core), offline:
// reports of a real run of `leap demo`, of a slice, and of a 500-leaf run, made by the umbrella bin.
// It checks what a person relies on, and saves screenshots under test-output/.
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { cleanupTempDirs, suite } from '@leap/test-utils';
import { cleanEnv, engineRecords, fixture, leapBin, OUTPUT, repoWith, runDemo, runSlice } from './helpers.js';
// @ts-expect-error a plain ES module shared with the bench
import { bigLog, ledgerText } from './fixtures/big-log.mjs';

const CHROMIUM = process.env.LEAP_CHROMIUM ?? '/usr/bin/chromium';
let browser: Browser;

function makeReport(repo: string): string {
  const out = join(repo, 'report.html');
  const r = spawnSync(process.execPath, [leapBin(), 'report', '--out', out], {
    cwd: repo,
    encoding: 'utf8',
    env: cleanEnv(),
  });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, `${out}\n`);
  return out;
}

/** Open a report offline; every request it makes is recorded (there must be none but the file itself). */
async function open(file: string, width = 1400): Promise<{ page: Page; requests: string[] }> {
  const context = await browser.newContext({ offline: true, viewport: { width, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  return { page, requests };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, name), fullPage: true });
}

// ---
const browse = suite('leap report in chromium');
browse.before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});
browse.after(async () => {
  await browser?.close();
  cleanupTempDirs();
});

browse(
  'a real run of leap demo: a bar per leaf, the REJECT and its revision, the ledger done; no request but the file',
  async () => {
    const repo = runDemo();
    const events = readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"launch"')).length;
    const file = makeReport(repo);
    const { page, requests } = await open(file);
    assert.equal(requests, [`file://${file}`]);
    assert.is(await page.title(), `leap report: ${repo}`);
    assert.is(await page.locator('#timeline .bar').count(), events);
    for (const box of await Promise.all((await page.locator('#timeline .bar').all()).map((b) => b.boundingBox()))) {
      assert.ok(box !== null && box.width >= 2 && box.height >= 10, 'every bar can be seen');
    }
    assert.is(await page.locator('#timeline .verdict-mark[data-verdict="REJECT"]').count(), 1);
    assert.ok((await page.locator('#timeline .verdict-mark').count()) >= 7);
    assert.is(
      await page
        .locator('#verdicts tr.verdict-row', { hasText: 'REJECT' })
        .locator('text=revision: develop-green-2')
        .count(),
      1,
    );
    assert.match(
      await page.locator('#ledgers h3').innerText(),
      /^Issue 1 Slugify step titles: (\d) of \1 steps done now$/,
    );
    assert.ok(await page.locator('#timeline summary', { hasText: 'issue 1' }).isVisible());
    assert.ok(await page.getByText('Drop characters like \' " $ ` that are not letters or digits').first().isVisible());
    assert.is(await page.locator('#timeline .bar.rev').count(), 1, 'the revision is outlined');
    await shot(page, 'report-demo.png');
  },
);

browse(
  "a real run of leap slice: its waves, each ball's rounds and receipt, its builder and reviewer leaves under their ball",
  async () => {
    const { repo } = runSlice();
    const file = makeReport(repo);
    const { page, requests } = await open(file);
    assert.equal(requests, [`file://${file}`]);
    assert.equal(await page.locator('.waves .wave h4').allInnerTexts(), ['WAVE 1', 'WAVE 2']);
    // Each card says what the engine recorded (hello and stray run at once, so their order varies).
    const engine = engineRecords(repo, 'greet');
    const cards = await page
      .locator('.ball')
      .evaluateAll((els) =>
        els.map((e): [string | null, string | null, string] => [
          e.getAttribute('data-ball'),
          e.getAttribute('data-receipt'),
          e.textContent ?? '',
        ]),
      );
    for (const [id, receipt, text] of cards) {
      const rec = id === null ? undefined : engine[id];
      if (rec === undefined) continue;
      assert.is(receipt, String(rec.receipt), `${id}'s receipt`);
      assert.is(/merged [0-9a-f]{12}/.test(text ?? ''), rec.merged, `${id} merged`);
      for (const [i, r] of rec.rounds.entries())
        assert.ok((text ?? '').includes(`r${i + 1} ${r === null ? '·' : r}`), `${id} round ${i + 1}`);
    }
    assert.equal(await page.locator('.waves .wave').nth(1).locator('.ball .id').allInnerTexts(), ['world']);
    assert.match(await page.locator('.ball[data-ball="world"]').innerText(), /after: hello/);
    assert.match(
      await page.locator('.ball[data-ball="stray"]').innerText(),
      /-1 refused[\s\S]*edited outside the scope: "README\.md"/,
    );
    assert.match(
      await page.locator('.slice-title').innerText(),
      /^Slice greet: 3 balls \(\d passed, \d held, 1 refused\)$/,
    );
    const subs = await page.locator('#timeline .sub').allInnerTexts();
    assert.ok(
      subs.includes('ball hello') &&
        subs.includes('ball stray') &&
        subs.every((x) => /^ball (hello|stray|world)$/.test(x)),
      `reviewer leaves sit under their ball, found by their candidate: ${subs.join(', ')}`,
    );
    const launches = readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"launch"')).length;
    assert.is(await page.locator('#timeline .bar').count(), launches);
    // Scripted agents report nothing: said once, not as a table of question marks.
    assert.match(
      await page.locator('#cost-none').innerText(),
      /^Tokens and cost: not reported by these agents \(.+\), for any of the \d+ leaves\.$/,
    );
    assert.is(await page.locator('#cost table').count(), 0);
    await shot(page, 'report-slice-run.png');
  },
);

browse(
  'a slice, with markup in its words: the waves with their balls and receipts, the markup shown as text and never run',
  async () => {
    const evil = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    const log = fixture('slice.jsonl').replace('edited README.md, outside the scope', evil.replace(/"/g, '\\"'));
    const repo = repoWith({ '.tdd/events.jsonl': log, '.tdd/issue-7.md': `# ${evil}\n\n## Steps\n\n- [ ] ${evil}\n` });
    const file = makeReport(repo);
    const { page, requests } = await open(file);
    assert.equal(requests, [`file://${file}`]);
    assert.is(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.is(await page.locator('img').count(), 0);
    assert.ok(await page.locator('.ball[data-ball="docs"]').getByText(evil).isVisible());
    assert.ok(await page.locator('#ledgers h3').getByText(evil).isVisible());
    assert.equal(await page.locator('.waves .wave h4').allInnerTexts(), ['WAVE 0', 'WAVE 1']);
    assert.equal(await page.locator('.waves .wave').nth(0).locator('.ball .id').allInnerTexts(), ['lexer', 'docs']);
    assert.equal(
      await page
        .locator('.ball')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-ball')}:${e.getAttribute('data-receipt')}`)),
      ['lexer:1', 'docs:-1', 'cli:', 'parser:1'],
    );
    assert.match(
      await page.locator('.ball[data-ball="lexer"]').innerText(),
      /1 passed[\s\S]*r1 0[\s\S]*r2 1[\s\S]*reviews: 2 of 2 pass[\s\S]*merged 111111111111/,
    );
    assert.match(
      await page.locator('#cost-slice').innerText(),
      /slice split-parser\s+5\s+49,000 \(1 unreported\)\s+11,400 \(1 unreported\)\s+\$0\.29 \(2 unreported\)/,
    );
    assert.is(await page.locator('#timeline .bar').count(), 6);
    await shot(page, 'report-slice.png');
  },
);

browse(
  '500 leaves stay readable: grouped and collapsible, no bar on another, no page wider than the window, labels at a legible size',
  async () => {
    const { lines, ledgers } = bigLog(500) as { lines: string[]; ledgers: Record<string, string[]> };
    const files: Record<string, string> = { '.tdd/events.jsonl': lines.join('') };
    for (const [issue, titles] of Object.entries(ledgers)) files[`.tdd/issue-${issue}.md`] = ledgerText(issue, titles);
    const file = makeReport(repoWith(files));
    const { page } = await open(file, 1280);
    assert.is(await page.locator('#timeline .bar').count(), 500);
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      'no horizontal scrolling',
    );
    const overlaps = await page.locator('#timeline .trk').evaluateAll((tracks) => {
      let bad = 0;
      for (const t of tracks) {
        const boxes = [...t.querySelectorAll('.bar')].map((b) => b.getBoundingClientRect());
        for (let i = 0; i < boxes.length; i++) {
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i] as DOMRect;
            const b = boxes[j] as DOMRect;
            const cross = a.left < b.right - 2.5 && b.left < a.right - 2.5 && a.top < b.bottom && b.top < a.bottom;
            if (cross) bad++;
          }
        }
      }
      return bad;
    });
    assert.is(overlaps, 0, 'bars drawn over each other');
    const sizes = await page
      .locator('#timeline .row .lbl, #timeline .sub')
      .evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
    assert.ok(sizes.length > 0 && sizes.every((s) => s >= 11));
    assert.is(await page.locator('#timeline details.grp').count(), 4);
    await page.locator('#timeline details.grp summary', { hasText: 'issue 1' }).click();
    assert.is(await page.locator('#timeline details.grp').first().getAttribute('open'), null, 'a group folds away');
    assert.ok(await page.locator('.run-mark.bail').isVisible());
    assert.is(await page.locator('.run-mark.stop').count(), 2);
    await page.locator('#timeline details.grp summary', { hasText: 'issue 1' }).click();
    await shot(page, 'report-500.png');
    await page.evaluate(() => document.querySelector('#timeline')?.scrollIntoView());
    await page.screenshot({ path: join(OUTPUT, 'report-500-timeline.png') });
  },
);

browse.run();

// Issue 42 §5, seen in Debian's chromium (playwright-core) on a real `leap demo`: the timeline's bars carry
// words that fit and nothing overlaps, the legend lists what the run used, scripted agents' cost is said once,
// and the live page is the report plus a badge saying it is live, which updates without a reload. Screenshots
// are compared pixel by pixel (in the browser's own canvas) and saved under test-output/.
import * as assert from 'uvu/assert';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { cleanupTempDirs, suite } from '@leap/test-utils';
import { startLiveServer, type LiveServer } from '../src/serve.js';
import { cleanEnv, leapBin, OUTPUT, runDemo } from './helpers.js';
import { spawnSync } from 'node:child_process';

const CHROMIUM = process.env.LEAP_CHROMIUM ?? '/usr/bin/chromium';
const look = suite('the report and its live page, as a person sees them');
const ctx = { browser: null as unknown as Browser, demo: '', report: '' };

look.before(async () => {
  ctx.browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  ctx.demo = runDemo();
  const r = spawnSync(process.execPath, [leapBin(), 'report'], { cwd: ctx.demo, encoding: 'utf8', env: cleanEnv() });
  assert.is(r.status, 0, r.stderr);
  ctx.report = r.stdout.trim();
  mkdirSync(OUTPUT, { recursive: true });
});
look.after(async () => {
  await ctx.browser?.close();
  cleanupTempDirs();
});

async function open(url: string): Promise<Page> {
  const page = await (await ctx.browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(url);
  return page;
}

// Run in a blank page as text: the test's own compiled functions carry helpers the page does not have.
const COMPARE = `async (x, y) => {
  const pixels = async (base64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + base64;
    await img.decode();
    const canvas = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height });
    const draw = canvas.getContext('2d');
    draw.drawImage(img, 0, 0);
    return draw.getImageData(0, 0, img.width, img.height);
  };
  const [p, q] = await Promise.all([pixels(x), pixels(y)]);
  if (p.width !== q.width || p.height !== q.height) return -1;
  let n = 0;
  for (let i = 0; i < p.data.length; i += 4) if (p.data[i] !== q.data[i] || p.data[i + 1] !== q.data[i + 1] || p.data[i + 2] !== q.data[i + 2]) n++;
  return n;
}`;

/** How many pixels differ between two PNG screenshots (-1: not the same size), counted in a blank page's canvas. */
async function differingPixels(a: Buffer, b: Buffer): Promise<number> {
  const page = await ctx.browser.newPage();
  try {
    return (await page.evaluate(
      `(${COMPARE})(${JSON.stringify(a.toString('base64'))}, ${JSON.stringify(b.toString('base64'))})`,
    )) as number;
  } finally {
    await page.close();
  }
}

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

look(
  'every bar says who ran it in a word that fits, every verdict is an icon; none of them overlaps another',
  async () => {
    const page = await open(`file://${ctx.report}`);
    const bars = await page.locator('#timeline .bar').evaluateAll((els) =>
      els.map((e) => ({
        text: e.textContent ?? '',
        cut: e.scrollWidth > e.clientWidth,
        title: e.getAttribute('title') ?? '',
        box: e.getBoundingClientRect().toJSON() as Box,
      })),
    );
    assert.is(bars.length, 21);
    for (const bar of bars) {
      assert.match(bar.text, /^(plan|dev|verify)( \d)?$/);
      assert.not.ok(bar.cut, `"${bar.text}" is cut`);
      assert.match(bar.title, /^(plan|develop-[a-z]+(-\d)?|verify-[a-z]+) · exited 0 · /, 'the tooltip names the leaf');
    }
    assert.equal(
      bars.filter((b) => b.text === 'dev 2').map((b) => b.title.split(' ')[0]),
      ['develop-green-2'],
    );
    const marks = await page
      .locator('#timeline .verdict-mark')
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent, box: e.getBoundingClientRect().toJSON() as Box })));
    assert.equal(marks.map((m) => m.text).join(''), '✓✓✓✓✗✓✓✓✓✓');
    const all = [...bars.map((b) => b.box), ...marks.map((m) => m.box)];
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++)
        assert.not.ok(overlap(all[i] as Box, all[j] as Box), `glyphs ${i} and ${j} overlap`);
    await page.screenshot({ path: join(OUTPUT, 'look-timeline.png'), fullPage: true });
  },
);

look(
  "the legend lists the states the run used, and nothing else; scripted agents' tokens and cost are said once",
  async () => {
    const page = await open(`file://${ctx.report}`);
    const legend = await page.locator('#timeline .legend > span:not(.meta)').allInnerTexts();
    assert.equal(
      legend.map((t) => t.trim().replace(/^[✓✗]\s*/, '')),
      ['exited', 'revision', 'PASS', 'REJECT'],
    );
    assert.match(
      await page.locator('#timeline .legend > span.meta').innerText(),
      /^bars: plan = planner, dev = developer, verify = verifier; a number is the attempt/,
    );
    assert.is(
      await page.locator('#cost-none').innerText(),
      'Tokens and cost: not reported by these agents (planner, developer, verifier), for any of the 21 leaves.',
    );
    assert.not.match(await page.locator('#cost').innerText(), /\?/);
    assert.equal(
      await page
        .locator('#summary .card', { hasText: /^(cost|tokens)/ })
        .locator('b')
        .allInnerTexts(),
      ['not reported by these agents', 'not reported by these agents'],
    );
  },
);

look(
  'the live page is the static report plus a badge "live · updated HH:MM:SSZ": their screenshots differ only by it',
  async () => {
    const server = await startLiveServer({ cwd: ctx.demo, env: cleanEnv() });
    try {
      const live = await open(server.url);
      await live.waitForFunction(() => document.documentElement.dataset.live === 'on', undefined, { timeout: 20_000 });
      assert.match(await live.locator('#live').innerText(), /^live · updated \d\d:\d\d:\d\dZ$/);
      const staticPage = await open(`file://${ctx.report}`);
      assert.is(await staticPage.locator('#live').count(), 0, 'the file says nothing of being live');
      const header = async (page: Page) => page.locator('header').screenshot();
      const badged = await header(live);
      assert.ok((await differingPixels(await header(staticPage), badged)) > 200, 'the badge shows');
      await live.screenshot({ path: join(OUTPUT, 'look-live.png'), fullPage: true });
      await live.evaluate(() => document.getElementById('live')?.remove());
      assert.is(
        await differingPixels(
          await staticPage.screenshot({ fullPage: true }),
          await live.screenshot({ fullPage: true }),
        ),
        0,
        'without its badge, the live page is the report',
      );
    } finally {
      await server.close();
    }
  },
);

look(
  'the live page updates without a reload: a new leaf appears, the badge says the later time, the picture changes',
  async () => {
    const server: LiveServer = await startLiveServer({ cwd: ctx.demo, env: cleanEnv() });
    try {
      const page = await open(server.url);
      await page.waitForFunction(() => document.documentElement.dataset.live === 'on', undefined, { timeout: 20_000 });
      await page.evaluate(() => Object.assign(window, { kept: 42 }));
      const before = await page.screenshot({ fullPage: true });
      const said = await page.locator('#live time').innerText();
      await new Promise((r) => setTimeout(r, 1100));
      const log = join(ctx.demo, '.tdd', 'events.jsonl');
      const last = readFileSync(log, 'utf8').trim().split('\n').at(-1) as string;
      const at = new Date(Date.parse((JSON.parse(last) as { ts: string }).ts) + 1000).toISOString();
      const base = { ts: at, issue: 1, step: null, skill_commit: null };
      appendFileSync(
        log,
        `${JSON.stringify({ ...base, event: 'launch', leaf: 'plan', actor: 'planner', phase: 'plan', attempt: 2, pid: 1, cmd: ['x'], run: 'late' })}\n`,
      );
      appendFileSync(
        log,
        `${JSON.stringify({ ...base, event: 'exit', leaf: 'plan', code: 0, status: 'exited', duration_ms: 500, run: 'late' })}\n`,
      );
      await page.waitForFunction(() => document.querySelectorAll('#timeline .bar').length === 22, undefined, {
        timeout: 20_000,
      });
      assert.is(
        await page.evaluate(() => (window as unknown as { kept?: number }).kept),
        42,
        'the page was never reloaded',
      );
      assert.ok((await page.locator('#live time').innerText()) > said, 'the badge says the time of the update');
      assert.is(await page.locator('#timeline .bar', { hasText: /^plan 2$/ }).count(), 1);
      const after = await page.screenshot({ fullPage: true });
      const changed = await differingPixels(before, after);
      assert.ok(changed !== 0, 'the picture changed');
      await page.screenshot({ path: join(OUTPUT, 'look-live-updated.png'), fullPage: true });
    } finally {
      await server.close();
    }
  },
);

look.run();

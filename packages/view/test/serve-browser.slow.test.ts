// `leap serve` in Debian's chromium (playwright-core) while a real `leap demo` runs: the page, opened
// before the demo starts, shows its leaves and verdicts as they come, without a reload.
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { cleanupTempDirs, makeTempDir, suite } from '@leap/test-utils';
import { startLiveServer } from '../src/serve.js';
import { cleanEnv, leapBin, OUTPUT } from './helpers.js';

const CHROMIUM = process.env.LEAP_CHROMIUM ?? '/usr/bin/chromium';
const live = suite('leap serve in chromium, during a real leap demo');
let browser: Browser;
live.before(async () => {
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
live.after(async () => {
  await browser?.close();
  cleanupTempDirs();
});

live(
  'leaf bars and verdicts appear on the open page as the demo makes them, without a reload; a wrong token is refused',
  async () => {
    // The page is opened on the demo's folder before the demo starts, so everything it shows arrives live.
    const dir = join(makeTempDir('leap-serve-demo-'), 'repo');
    mkdirSync(dir);
    const server = await startLiveServer({ cwd: dir, env: cleanEnv() });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const refused = await page.goto(
        server.url.replace(/([0-9a-f])\/$/, (_all, c: string) => `${c === '0' ? '1' : '0'}/`),
      );
      assert.is(refused?.status(), 403);
      await page.goto(server.url);
      await page.waitForFunction(() => document.documentElement.dataset.live === 'on', undefined, { timeout: 20_000 });
      assert.is(await page.locator('#timeline .bar').count(), 0);
      // A mark that a reload would wipe out.
      await page.evaluate(() => {
        (window as unknown as { kept: number }).kept = 42;
      });
      const demo = spawn(process.execPath, [leapBin(), 'demo', '--dir', dir], { env: cleanEnv(), stdio: 'ignore' });
      const done = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
      await page.waitForFunction(() => document.querySelectorAll('#timeline .bar').length >= 1, undefined, {
        timeout: 120_000,
      });
      await page.waitForFunction(() => document.querySelectorAll('#timeline .verdict-mark').length >= 1, undefined, {
        timeout: 120_000,
      });
      assert.is(await done, 0);
      // After the demo's last event the page shows the whole run: as many bars as the log has launches.
      const launches = readFileSync(join(dir, '.tdd/events.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"event":"launch"')).length;
      await page.waitForFunction((n) => document.querySelectorAll('#timeline .bar').length === n, launches, {
        timeout: 30_000,
      });
      assert.is(
        await page.evaluate(() => (window as unknown as { kept?: number }).kept),
        42,
        'the page was never reloaded',
      );
      assert.ok(Number(await page.evaluate(() => document.documentElement.dataset.updates)) >= 2);
      assert.ok(
        requests.every((u) => u.startsWith(`http://127.0.0.1:${server.port}/`)),
        requests.join('\n'),
      );
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'serve-demo.png'), fullPage: true });
    } finally {
      await context.close();
      await server.close();
    }
  },
);

live.run();

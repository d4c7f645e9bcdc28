// Issue 42: every view command looks at a repository named by --dir, from anywhere (CONTRACT section 10), and a
// run stopped by `leap tdd stop` shows as stopped, with its mode, in each of them: a real `leap demo` is
// stopped mid-run through the umbrella bin, then looked at from a folder that is no repository at all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, waitFor } from '@leap/test-utils';
import { captureIo, cleanEnv, leapBin, repoWith } from './helpers.js';
import { reportMain } from '../src/report-cli.js';
import { statusMain } from '../src/status-cli.js';
import type { StatusData } from '../src/status-data.js';

const ends = suite('--dir on every view command, and a stopped run shown as stopped');
ends.after(cleanupTempDirs);

function leap(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [leapBin(), ...args], { cwd, encoding: 'utf8', env: cleanEnv() });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let demo = '';
const elsewhere = makeTempDir('leap-elsewhere-');

ends('a leap demo stopped by leap tdd stop at-leaf ends with exit 3', async () => {
  demo = join(makeTempDir('leap-stopped-demo-'), 'repo');
  const child = spawn(process.execPath, [leapBin(), 'demo', '--dir', demo], { env: cleanEnv(), stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const events = join(demo, '.tdd', 'events.jsonl');
  await waitFor(() => existsSync(events) && readFileSync(events, 'utf8').includes('"event":"launch"'), 60_000);
  const stop = leap(['tdd', 'stop', 'at-leaf'], demo);
  assert.is(stop.code, 0, stop.err);
  assert.is(await exited, 3);
});

ends(
  'leap status --dir: the issue is stopped (at-leaf), in the terminal and in --json; no pending stop is left',
  () => {
    const json = leap(['status', '--dir', demo, '--json'], elsewhere);
    assert.is(json.code, 0, json.err);
    const data = JSON.parse(json.out) as StatusData;
    assert.is(data.repo, demo);
    assert.is(data.issues[0]?.stopped?.mode, 'at-leaf');
    assert.is(data.stop.pending, null, 'the conductor consumed the request');
    const text = leap(['status', '--dir', demo], elsewhere);
    assert.match(text.out, /^ {2}stopped \(at-leaf\) at \d\d:\d\d:\d\d.*; leap tdd run --issue 1 resumes it$/m);
  },
);

ends('leap tdd status --dir: stopped, with its mode, not a bare last phase', () => {
  const json = leap(['tdd', 'status', '--dir', demo, '--issue', '1', '--json'], elsewhere);
  assert.is(json.code, 0, json.err);
  const status = JSON.parse(json.out) as {
    stop: string | null;
    stopped: { mode: string; at: string } | null;
    bail: unknown;
  };
  assert.equal([status.stop, status.stopped?.mode, status.bail], [null, 'at-leaf', null]);
  assert.match(
    leap(['tdd', 'status', '--dir', demo], elsewhere).out,
    /^ {2}stopped: at-leaf .*; leap tdd run --issue 1 resumes it$/m,
  );
});

ends(
  'leap report --dir: written inside the state folder (git status stays clean), the stopped run on its summary',
  () => {
    const r = leap(['report', '--dir', demo], elsewhere);
    assert.is(r.code, 0, r.err);
    assert.is(r.out, `${join(demo, '.tdd', 'leap-report.html')}\n`);
    assert.is(r.err, '');
    assert.is(git(demo, 'status', '--porcelain'), '');
    assert.match(
      readFileSync(join(demo, '.tdd', 'leap-report.html'), 'utf8'),
      /<span class="meta">stopped<\/span><b>issue 1 \(at-leaf\)<\/b>/,
    );
    // --out into the work tree works, and says that git will see the file.
    const out = leap(['report', '--dir', demo, '--out', join(demo, 'r.html')], elsewhere);
    assert.is(out.code, 0, out.err);
    assert.match(
      out.err,
      /r\.html is in the repository and not ignored, so git status shows it; without --out the report goes into the state folder, which git ignores/,
    );
  },
);

ends('leap serve --dir: the live page of that repository, the stopped run on it', async () => {
  const child = spawn(process.execPath, [leapBin(), 'serve', '--dir', demo, '--json'], {
    cwd: elsewhere,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let printed = '';
    child.stdout.on('data', (b: Buffer) => {
      printed += b.toString();
    });
    await waitFor(() => printed.includes('\n'), 20_000);
    const { url } = JSON.parse(printed) as { url: string };
    const page = await (await fetch(url)).text();
    assert.match(page, /<span class="meta">stopped<\/span><b>issue 1 \(at-leaf\)<\/b>/);
    assert.match(page, new RegExp(`leap report: ${demo}`));
  } finally {
    child.kill('SIGTERM');
  }
});

ends('a --dir that is not a folder is bad input (exit 2) for every view command', () => {
  const missing = join(elsewhere, 'nowhere');
  for (const args of [['status'], ['report'], ['serve'], ['tdd', 'status']]) {
    const r = leap([...args, '--dir', missing], elsewhere);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /^leap: Expected --dir to name a folder \(a repository to look at\), got ".*nowhere"\n/);
  }
});

ends('a later launch or bail ends the stopped state; a stop by a signal (no mode) shows as signal', async () => {
  const ev = (n: number, fields: Record<string, unknown>) =>
    `${JSON.stringify({ ts: `2026-12-01T10:00:0${n}.000Z`, issue: 1, step: 'S', skill_commit: null, ...fields })}\n`;
  const stop = ev(1, { event: 'stop', mode: null, action: 'honoured' });
  const launch = ev(2, {
    event: 'launch',
    leaf: 'develop-red',
    actor: 'developer',
    phase: 'red',
    attempt: 1,
    pid: 1,
    cmd: ['x'],
  });
  const json = async (log: string): Promise<StatusData> => {
    const c = captureIo(repoWith({ '.tdd/events.jsonl': log }));
    assert.is(await statusMain(['--json'], c.io), 0);
    return JSON.parse(c.out()) as StatusData;
  };
  assert.equal((await json(stop)).issues[0]?.stopped, { mode: 'signal', at: '2026-12-01T10:00:01.000Z', step: 'S' });
  assert.is((await json(stop + launch)).issues[0]?.stopped, null);
  assert.ok(
    (await json(stop + ev(3, { event: 'bail', cause: 'dirty-tree', class: 'process' }))).issues.every(
      (i) => i.stopped === null,
    ),
  );
});

ends(
  'flaky tests (verdict events saying "flaky") are listed by leap status and leap report, with their test',
  async () => {
    const ev = (fields: Record<string, unknown>) =>
      `${JSON.stringify({ ts: '2026-12-01T10:00:05.000Z', issue: 1, step: 'Cut slugs', skill_commit: null, ...fields })}\n`;
    const repo = repoWith({
      '.tdd/events.jsonl': ev({
        event: 'verdict',
        phase: 'green',
        verdict: 'flaky',
        reason: 'passed once, failed once',
        tests: ['test/slug.test.js > cuts at a dash'],
      }),
    });
    const c = captureIo(repo);
    assert.is(await statusMain(['--json'], c.io), 0);
    const data = JSON.parse(c.out()) as StatusData;
    assert.equal(data.flaky, [
      {
        at: '2026-12-01T10:00:05.000Z',
        issue: 1,
        step: 'Cut slugs',
        phase: 'green',
        tests: ['test/slug.test.js > cuts at a dash'],
        reason: 'passed once, failed once',
      },
    ]);
    const text = captureIo(repo);
    await statusMain([], text.io);
    assert.match(
      text.out(),
      /^Flaky tests \(passed once and failed once on the same tree\)\n {2}10:00:05 {2}test\/slug\.test\.js > cuts at a dash {2}issue 1 Cut slugs$/m,
    );
    const r = captureIo(repo);
    assert.is(await reportMain([], r.io), 0);
    const html = readFileSync(r.out().trim(), 'utf8');
    assert.match(html, /<h3 id="flaky">Flaky tests: passed once and failed once on the same tree<\/h3>/);
    assert.match(
      html,
      /<tr class="flaky-row"><td class="t">10:00:05<td>test\/slug\.test\.js &gt; cuts at a dash<td>1<td class="reason">Cut slugs/,
    );
    assert.match(html, /<span class="meta">flaky tests<\/span><b>1<\/b>/);
  },
);

ends.run();

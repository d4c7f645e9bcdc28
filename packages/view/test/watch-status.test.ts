// `leap status --watch` in process: frames follow the log as it grows (through chokidar, not a
// timer), a log written in pieces, and a state folder that appears after the watch started.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, waitFor } from '@leap/test-utils';
import { watchStatus } from '../src/watch-status.js';
import type { StatusData } from '../src/status-data.js';
import { cleanEnv, repoWith } from './helpers.js';

const line = (s: number, fields: Record<string, unknown>) =>
  `${JSON.stringify({ ts: new Date(Date.parse('2026-11-30T10:00:00Z') + s * 1000).toISOString(), issue: 1, step: 'Only', skill_commit: null, ...fields })}\n`;

function start(repo: string, intervalMs: number) {
  const frames: Array<{ data: StatusData; changed: boolean }> = [];
  const controller = new AbortController();
  const done = watchStatus({
    cwd: repo,
    env: cleanEnv(),
    signal: controller.signal,
    intervalMs,
    onFrame: (data, changed) => frames.push({ data, changed }),
  });
  return {
    frames,
    done,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

// ---
const watch = suite('watchStatus');
watch.after(cleanupTempDirs);

watch(
  'redraws when the log grows, through file events alone (the timer is a minute); a line written in two pieces counts once whole',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': line(0, { event: 'mark', name: 'start', anchor: null }) });
    const w = start(repo, 60_000);
    try {
      await waitFor(() => w.frames.length === 1);
      assert.equal(w.frames[0]?.data.log.events, 1);
      await new Promise((r) => setTimeout(r, 300)); // chokidar is ready
      const log = join(repo, '.tdd/events.jsonl');
      appendFileSync(log, line(1, { event: 'verdict', phase: 'red', verdict: 'REJECT', reason: 'not yet' }));
      assert.ok(await waitFor(() => w.frames.at(-1)?.data.verdicts.length === 1, 5000), 'a frame shows the verdict');
      const half = line(2, { event: 'verdict', phase: 'red', verdict: 'PASS', reason: 'now' });
      appendFileSync(log, half.slice(0, 40));
      assert.ok(
        await waitFor(() => w.frames.at(-1)?.data.log.tornTail === true, 5000),
        'a frame says the last line is being written',
      );
      appendFileSync(log, half.slice(40));
      assert.ok(await waitFor(() => w.frames.at(-1)?.data.verdicts.length === 2, 5000));
      assert.equal(w.frames.at(-1)?.data.log, { exists: true, events: 3, tornTail: false, problems: [], unknown: [] });
      assert.ok(w.frames.every((f) => f.changed));
      writeFileSync(join(repo, '.tdd/stop'), 'now\n');
      assert.ok(await waitFor(() => w.frames.at(-1)?.data.stop.pending === 'now', 5000), 'a stop request is seen');
    } finally {
      await w.stop();
    }
  },
);

watch(
  'a state folder made after the start is found; a running leaf redraws with the clock; the watch ends on abort',
  async () => {
    const repo = repoWith();
    const w = start(repo, 100);
    try {
      await waitFor(() => w.frames.length === 1);
      assert.is(w.frames[0]?.data.log.exists, false);
      mkdirSync(join(repo, '.tdd'));
      writeFileSync(
        join(repo, '.tdd/events.jsonl'),
        line(0, {
          event: 'launch',
          leaf: 'develop-red',
          actor: 'developer',
          phase: 'red',
          attempt: 1,
          pid: process.pid,
          cmd: ['x'],
        }).replace('2026-11-30T10:00:00.000Z', new Date().toISOString()),
      );
      assert.ok(await waitFor(() => w.frames.at(-1)?.data.running.length === 1, 5000));
      const seen = w.frames.length;
      assert.ok(await waitFor(() => w.frames.length >= seen + 2, 5000), 'the clock redraws a running leaf');
      assert.ok(w.frames.slice(seen).some((f) => !f.changed));
    } finally {
      await w.stop();
    }
    const after = w.frames.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.is(w.frames.length, after, 'no frame after the end');
    const aborted = new AbortController();
    aborted.abort();
    await watchStatus({ cwd: repo, env: cleanEnv(), signal: aborted.signal, onFrame: () => assert.unreachable() });
  },
);

watch('an abort while the watch starts (leap serve closed at once) ends it', async () => {
  const repo = repoWith({ '.tdd/events.jsonl': line(0, { event: 'mark', name: 'start', anchor: null }) });
  const aborted = new AbortController();
  const watching = watchStatus({ cwd: repo, env: cleanEnv(), signal: aborted.signal, onFrame: () => undefined });
  aborted.abort();
  const hung = new Promise((r) => setTimeout(r, 10_000, 'still watching 10 s after the abort').unref());
  assert.is(await Promise.race([watching.then(() => 'ended'), hung]), 'ended');
});

watch.run();

// ---
const cli = suite('statusMain --watch');
cli.after(cleanupTempDirs);

async function watchMain(
  args: string[],
  isTTY: boolean,
  until: (out: string) => boolean,
): Promise<{ code: number; out: string }> {
  const { statusMain } = await import('../src/status-cli.js');
  const { captureIo } = await import('./helpers.js');
  const repo = repoWith({ '.tdd/events.jsonl': line(0, { event: 'mark', name: 'start', anchor: null }) });
  const c = captureIo(repo, cleanEnv({ COLUMNS: '80' }), isTTY);
  const running = statusMain(args, c.io);
  try {
    await waitFor(() => c.out().length > 0, 5000);
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(
      join(repo, '.tdd/events.jsonl'),
      line(1, { event: 'verdict', phase: 'red', verdict: 'PASS', reason: 'ok' }),
    );
    await waitFor(() => until(c.out()), 5000);
  } finally {
    // What Ctrl-C does: the command's own SIGINT listener ends the watch.
    process.emit('SIGINT');
  }
  return { code: await running, out: c.out() };
}

cli('--json prints one JSON line per change; Ctrl-C ends it with exit 0 and removes its listeners', async () => {
  const before = process.listenerCount('SIGINT');
  const r = await watchMain(['--watch', '--json'], false, (out) => out.split('\n').length >= 3);
  assert.is(r.code, 0);
  const frames = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as StatusData);
  assert.equal(
    frames.slice(0, 2).map((f) => f.log.events),
    [1, 2],
  );
  assert.is(process.listenerCount('SIGINT'), before);
});

cli(
  'on a terminal each frame redraws from the top of the screen; through a pipe frames follow one another',
  async () => {
    const tty = await watchMain(['--watch'], true, (out) => out.split('\x1b[H').length >= 3);
    assert.ok(tty.out.startsWith('\x1b[2J\x1b[H'), 'the screen is cleared once');
    assert.match(tty.out, /\x1b\[H\x1b\[1mleap status\x1b\[0m.*2 events\x1b\[K\n/);
    assert.ok(tty.out.endsWith('\x1b[J'));
    const piped = await watchMain(['--watch'], false, (out) => out.split('leap status').length >= 3);
    assert.match(piped.out, /1 event\n[\s\S]*\n\nleap status {2}.* {2}2 events\n/);
  },
);

cli.run();

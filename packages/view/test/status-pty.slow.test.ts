// `leap status` through the real umbrella bin in a real pseudo-terminal, as a person sees it: a
// one-shot in `script`'s pty (colours on, because stdout is a terminal), and `--watch` in a tmux pane
// following a real run of `leap demo` while a real supervised leaf starts and is stopped. Needs tmux.
import * as assert from 'uvu/assert';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, isAlive, suite, waitFor } from '@leap/test-utils';
import { cleanEnv, FIXTURES, leapBin, OUTPUT, runDemo } from './helpers.js';

const SOCKET = `leap-view-test-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', env: { ...cleanEnv(), TERM: 'xterm-256color' } });
const screen = (): string => tmux('capture-pane', '-p', '-t', 'view');
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

let repo = '';
let leaf: ChildProcess | undefined;

// ---
const pty = suite('leap status in a pseudo-terminal');
pty.before(() => {
  repo = runDemo();
});
pty.after(() => {
  if (leaf?.pid !== undefined && isAlive(leaf.pid)) leaf.kill('SIGKILL');
  spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { stdio: 'ignore' });
  cleanupTempDirs();
});

pty("one shot in a pty: coloured, the ledger's bar full, the last verdicts in green", () => {
  const cmd = `${quote(process.execPath)} ${quote(leapBin())} status`;
  const r = spawnSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
    cwd: repo,
    encoding: 'utf8',
    env: cleanEnv({ COLUMNS: '100' }),
  });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /\x1b\[1mleap status\x1b\[0m/);
  assert.match(r.stdout, /\[█{24}\] (\d)\/\1 steps done/);
  assert.match(r.stdout, /\x1b\[32mPASS {2}\x1b\[0m refactor/);
  const piped = spawnSync(process.execPath, [leapBin(), 'status'], { cwd: repo, encoding: 'utf8', env: cleanEnv() });
  assert.is(piped.status, 0);
  assert.ok(!piped.stdout.includes('\x1b'), 'no colour through a pipe');
});

pty('the start-up of leap status loads no zod, ajv or chokidar; --watch loads chokidar', () => {
  const loaded = (args: string[]): string[] => {
    const out = join(OUTPUT, 'requires.txt');
    mkdirSync(OUTPUT, { recursive: true });
    const r = spawnSync(process.execPath, ['-r', join(FIXTURES, 'record-requires.cjs'), leapBin(), ...args], {
      cwd: repo,
      encoding: 'utf8',
      env: cleanEnv({ REQUIRES_OUT: out }),
      timeout: 3000,
      killSignal: 'SIGINT',
    });
    assert.ok(r.status === 0 || r.signal === 'SIGINT', r.stderr);
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((f) => f.includes('/node_modules/'));
  };
  const heavy = (files: string[]) => files.filter((f) => /\/node_modules\/(zod|ajv|chokidar|simple-git|zx)\//.test(f));
  assert.equal(heavy(loaded(['status'])), []);
  assert.equal(heavy(loaded(['status', '--json'])), []);
  assert.ok(
    heavy(loaded(['status', '--watch', '--json'])).some((f) => f.includes('/chokidar/')),
    'chokidar serves --watch',
  );
});

pty(
  '--watch in a tmux pane: a supervised leaf appears as it starts, leaves when it is stopped; Ctrl-C ends the watch',
  async () => {
    tmux(
      'new-session',
      '-d',
      '-s',
      'view',
      '-x',
      '110',
      '-y',
      '50',
      '-c',
      repo,
      process.execPath,
      leapBin(),
      'status',
      '--watch',
    );
    assert.ok(await waitFor(() => /Running now\s+no leaf is running/.test(screen()), 10_000), screen());
    const first = screen();
    const events = readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
    assert.match(first, new RegExp(`^leap status {2}.+ {2}${events} events`, 'm'));
    assert.match(first, /^ {2}\[█{24}\] (\d)\/\1 steps done$/m);
    assert.match(first, /^ {2}✓ Drop characters like ' " \$ ` that are not letters or digits$/m);

    // A real leaf, started as a skill starts one: supervised, its role from its name.
    const step = 'Drop characters like \' " $ ` that are not letters or digits';
    leaf = spawn(process.execPath, [binPath('supervise', 'leap-supervise'), 'develop-refactor-2', 'sleep', '30'], {
      cwd: repo,
      stdio: 'ignore',
      env: cleanEnv({ VERI_ISSUE: '1', VERI_STEP: step, VERI_TIMEOUT: '40' }),
    });
    assert.ok(
      await waitFor(
        () =>
          /● develop-refactor-2 {2}issue 1 {2}refactor {2}attempt 2 {2}\d+\.\ds of 40\.0s \[[█░]{10}\] \d+%/.test(
            screen(),
          ),
        10_000,
      ),
      screen(),
    );
    assert.match(screen(), /^ {6}step: Drop characters like/m);
    assert.match(screen(), new RegExp(`  ${events + 1} events`));
    const before = screen().match(/attempt 2 {2}([\d.]+)s/)?.[1];
    assert.ok(
      await waitFor(() => screen().match(/attempt 2 {2}([\d.]+)s/)?.[1] !== before, 5000),
      'the elapsed time moves',
    );
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'status-watch-screen.txt'), screen());

    leaf.kill('SIGTERM');
    assert.ok(
      await waitFor(
        () => /Running now\s+no leaf is running/.test(screen()) && screen().includes(`  ${events + 2} events`),
        10_000,
      ),
      screen(),
    );
    tmux('send-keys', '-t', 'view', 'C-c');
    assert.ok(
      await waitFor(() => spawnSync('tmux', ['-L', SOCKET, 'has-session', '-t', 'view']).status !== 0, 5000),
      'the watch ended on Ctrl-C',
    );
  },
);

pty.run();

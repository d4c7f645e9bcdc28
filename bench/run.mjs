#!/usr/bin/env node
// `npm run bench`: start-up ratios against `node -e 0` measured in the same run, event-log
// throughput and integrity, supervision latencies, jury wall time; each capability's suite (bench/suites/).
// Writes bench/RESULTS.md. Builds first (nx, cached) unless --no-build.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, freemem, totalmem, tmpdir, release, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeRuns } from './time-runs.mjs';
import { median, quartiles } from './stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const bin = (pkg, name) => join(root, 'packages', pkg, 'dist', 'bin', `${name}.cjs`);
const has = (...paths) => paths.every((p) => existsSync(p));
const tmp = mkdtempSync(join(tmpdir(), 'leap-bench-'));
const rows = { starts: [], notes: [], checks: [] };

if (!process.argv.includes('--no-build')) {
  execFileSync('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false' },
  });
  // Let the build's tail (its exiting workers, the page cache writing back) pass before timing anything.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
}

const ms = (ns) => Number(ns) / 1e6;

/**
 * Cold start of a command as a ratio to `node -e 0`: each run times the baseline and then the
 * command back to back, and the figure is the median of those paired ratios, so the machine's
 * drifts (a shared VM) cancel within each pair instead of skewing one side.
 */
function coldStart(label, args, { budget, input, env, cwd, expect } = {}) {
  const [base, cmd] = timeRuns(RUNS, [process.execPath, ...args], {
    base: [process.execPath, '-e', '0'],
    input,
    env,
    cwd,
    expect,
  });
  const ratios = cmd.map((c, i) => c / base[i]);
  const ratio = median(ratios);
  rows.starts.push({ label, base: median(base), cmd: median(cmd), ratio, spread: quartiles(ratios), budget });
  console.log(
    `${label}: ${median(cmd).toFixed(1)} ms vs node -e 0 ${median(base).toFixed(1)} ms; median paired ratio ${ratio.toFixed(2)}x${budget ? ` (budget ${budget}x)` : ''}`,
  );
  return ratio;
}

// `floor`, when the figure has one measured beside it: what the same work costs done by the smallest thing
// that can do it, as text, and whether the budget is below it (then no implementation can meet the budget).
function check(label, value, budget, ok, unit = '', floor = null) {
  rows.checks.push({ label, value, budget, ok, floor });
  const verdict = ok ? 'ok' : floor?.below ? `over, but the budget is below its floor (${floor.value})` : 'OVER BUDGET';
  console.log(`${label}: ${value}${unit} (${budget}) ${verdict}`);
}

// BENCH_ONLY=a,b runs only those suites of bench/suites/ and prints them, leaving RESULTS.md alone.
const only = process.env.BENCH_ONLY?.split(',');
if (!only) {
  // --- start-up of each command that exists
  const state = join(tmp, 'state');
  mkdirSync(state, { recursive: true });
  const env = { ...process.env, VERI_STATE_DIR: state };
  if (has(bin('core', 'leap-role')))
    coldStart('leap-role develop-red', [bin('core', 'leap-role'), 'develop-red'], { expect: 0 });
  if (has(bin('core', 'leap-event')))
    coldStart('leap-event mark', [bin('core', 'leap-event'), 'mark', 'bench'], { env, expect: 0 });
  if (has(bin('supervise', 'leap-stop')))
    coldStart('leap-stop (none pending)', [bin('supervise', 'leap-stop')], { env, budget: 1.15, expect: 3 });
  if (has(bin('supervise', 'leap-supervise'), bin('supervise', 'leap-wait'))) {
    spawnSync(process.execPath, [bin('supervise', 'leap-supervise'), 'done', 'true'], { env, stdio: 'ignore' });
    coldStart('leap-wait on a finished leaf', [bin('supervise', 'leap-wait'), 'done'], {
      env,
      budget: 1.15,
      expect: 0,
    });
    coldStart('leap-supervise NAME true', [bin('supervise', 'leap-supervise'), 'bench-true', 'true'], {
      env,
      budget: 1.3,
      expect: 0,
    });
  }
  const benchSetup = join(root, 'bench', 'setup-verify.mjs');
  if (has(bin('verify', 'leap-verify'), benchSetup)) {
    const { setupVerifyPrompt } = await import(benchSetup);
    const { cwd, env: verifyEnv, args } = setupVerifyPrompt(tmp);
    coldStart(
      'leap-verify prompt (green: step, spec, tests from the red verdict)',
      [bin('verify', 'leap-verify'), ...args],
      { cwd, env: { ...process.env, ...verifyEnv }, budget: 1.3, expect: 0 },
    );
    const redArgs = args.map((a) => (a === 'green' ? 'red' : a));
    coldStart(
      "leap-verify prompt (red: one `git show` finds the red commit's tests)",
      [bin('verify', 'leap-verify'), ...redArgs],
      { cwd, env: { ...process.env, ...verifyEnv }, expect: 0 },
    );
  }

  // --- event log: append rate in one process, and 8 concurrent writers
  {
    const core = await import(join(root, 'packages', 'core', 'dist', 'index.js'));
    const file = join(tmp, 'rate.jsonl');
    const ctx = { issue: 1, step: 'bench', skillCommit: null };
    const n = 20_000;
    const log = core.openEventLog(file);
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) log.append(core.createEvent('mark', { name: 'rate', anchor: String(i) }, ctx));
    log.close();
    const openRate = n / (ms(process.hrtime.bigint() - t0) / 1000);
    const file2 = join(tmp, 'rate2.jsonl');
    t0 = process.hrtime.bigint();
    for (let i = 0; i < 5_000; i++)
      core.appendEvent(file2, core.createEvent('mark', { name: 'rate', anchor: String(i) }, ctx));
    const eachRate = 5_000 / (ms(process.hrtime.bigint() - t0) / 1000);
    rows.notes.push(
      `Event append rate, one process, log kept open: ${Math.round(openRate).toLocaleString('en')} events/s`,
    );
    rows.notes.push(
      `Event append rate, one process, open-append-close per event (as separate commands do): ${Math.round(eachRate).toLocaleString('en')} events/s`,
    );
    console.log(rows.notes.slice(-2).join('\n'));

    const shared = join(tmp, 'concurrent.jsonl');
    const fixture = join(root, 'packages', 'core', 'test', 'fixtures', 'append-many.mjs');
    t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from(
        { length: 8 },
        (_, w) =>
          new Promise((resolve, reject) => {
            spawn(process.execPath, [fixture, shared, String(w), '2000'], { stdio: 'inherit' }).on('exit', (c) =>
              c === 0 ? resolve() : reject(new Error(`writer ${w} exit ${c}`)),
            );
          }),
      ),
    );
    const wall = ms(process.hrtime.bigint() - t0);
    const lines = readFileSync(shared, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    let torn = 0;
    const seen = new Set();
    for (const line of lines) {
      try {
        const e = JSON.parse(line);
        seen.add(`${e.name}:${e.anchor}`);
      } catch {
        torn++;
      }
    }
    const lost = 16_000 - seen.size;
    check('8 processes x 2,000 appends at once: torn lines', torn, '0', torn === 0);
    check('8 processes x 2,000 appends at once: lost events', lost, '0', lost === 0);
    rows.notes.push(`8 concurrent writers x 2,000 events: ${wall.toFixed(0)} ms wall, ${lines.length} lines`);
  }

  // --- supervision latencies
  if (has(bin('supervise', 'leap-wait'))) {
    // From the exit file's rename to leap-wait returning.
    const lat = [];
    for (let i = 0; i < RUNS; i++) {
      const name = `lat${i}`;
      writeFileSync(
        join(state, `${name}.pid`),
        `${process.pid}\nstarttime=${readFileSync(`/proc/${process.pid}/stat`, 'latin1').split(') ')[1].split(' ')[19]}\n`,
      );
      const waiter = spawn(process.execPath, [bin('supervise', 'leap-wait'), name, '30'], { env, stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 400));
      const tmpExit = join(state, `.${name}.exit.tmp`);
      writeFileSync(tmpExit, '0\nstatus=exited\n');
      const t0 = process.hrtime.bigint();
      renameSync(tmpExit, join(state, `${name}.exit`));
      await new Promise((r) => waiter.on('exit', r));
      lat.push(ms(process.hrtime.bigint() - t0));
    }
    const m = median(lat);
    check('exit file rename to leap-wait returning (median)', m.toFixed(1), '<= 15 ms', m <= 15, ' ms');
  }
  if (has(bin('supervise', 'leap-supervise'))) {
    const ignore = join(tmp, 'ignore-term.js');
    writeFileSync(ignore, "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);\n");
    const timeout = 0.5;
    const grace = 0.5;
    const over = [];
    const wall = [];
    const events = join(state, 'events.jsonl');
    for (let i = 0; i < 9; i++) {
      const t0 = process.hrtime.bigint();
      spawnSync(process.execPath, [bin('supervise', 'leap-supervise'), `term${i}`, process.execPath, ignore], {
        env: { ...env, VERI_TIMEOUT: String(timeout), VERI_KILL_AFTER: String(grace) },
        stdio: 'ignore',
      });
      wall.push(ms(process.hrtime.bigint() - t0) - (timeout + grace) * 1000);
      // The leaf's clock starts at its launch (the event is written just before the spawn); the exit event is
      // written once the leaf and its tree are gone and NAME.exit is in place: a bound on the leaf's life.
      const mine = readFileSync(events, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.leaf === `term${i}`);
      const at = (kind) => Date.parse(mine.find((e) => e.event === kind).ts);
      over.push(at('exit') - at('launch') - (timeout + grace) * 1000);
    }
    const m = median(over);
    check(
      'SIGTERM-ignoring leaf: from its launch to its exit record, beyond timeout + grace (median of 9)',
      m.toFixed(0),
      '<= 200 ms',
      m <= 200,
      ' ms',
    );
    rows.notes.push(
      `SIGTERM-ignoring leaf: the whole leap-supervise run, its own Node start-up included, took timeout + grace + ${median(wall).toFixed(0)} ms (median of 9)`,
    );
  }

  // --- jury of three one-second reviewers
  if (has(bin('verify', 'leap-jury'), join(root, 'bench', 'jury.mjs'))) {
    const {
      benchJury,
      benchJuryAgainstSpawner,
      benchJuryFromNode,
      benchJuryLibrary,
      benchReviewer,
      benchReviewersTogether,
      benchNodeSpawner,
    } = await import(join(root, 'bench', 'jury.mjs'));
    const paired = benchJuryAgainstSpawner(tmp, bin('verify', 'leap-jury'));
    check(
      'jury of three reviewers taking 1 s each: `leap-jury` from a shell vs the smallest Node script spawning the same three, run by run (median paired ratio of 11)',
      paired.ratio.toFixed(3),
      '<= 1.1x',
      paired.ratio <= 1.1,
      'x',
    );
    rows.notes.push(
      `leap-jury against its floor, paired in each of 11 runs: leap-jury median ${paired.jury.median.toFixed(3)} s, the three reviewers spawned by the smallest Node script median ${paired.floor.median.toFixed(3)} s; ratio ${paired.ratio.toFixed(3)}x, middle half of the ratios ${paired.spread.map((r) => r.toFixed(3)).join('-')}`,
    );
    const jury = benchJury(tmp, bin('verify', 'leap-jury'));
    const fromNode = benchJuryFromNode(tmp, bin('verify', 'leap-jury'));
    const library = await benchJuryLibrary(tmp, join(root, 'packages', 'verify', 'dist', 'index.js'));
    const reviewer = benchReviewer(tmp);
    const together = benchReviewersTogether(tmp);
    const spawner = benchNodeSpawner(tmp);
    const bare = process.env.NODE_EXTRA_CA_CERTS
      ? benchJury(tmp, bin('verify', 'leap-jury'), { withoutCaCerts: true })
      : null;
    rows.notes.push(
      `jury of three 1-second reviewers, 11 runs each: leap-jury from a shell ${jury.min.toFixed(3)} s to ${jury.max.toFixed(3)} s; the same spawned from the bench's Node process (its fork counted) ${fromNode.min.toFixed(3)} s to ${fromNode.max.toFixed(3)} s, median ${fromNode.median.toFixed(3)} s; conveneJury() called in a running process (as LEAP slices call it) ${library.min.toFixed(3)} s to ${library.max.toFixed(3)} s, median ${library.median.toFixed(3)} s; one reviewer alone (bash, cat and sleep, from a shell) ${reviewer.median.toFixed(3)} s; three reviewers started together by one bash, no jury code (the floor of any jury on these cores, less Node's start and exit) median ${together.median.toFixed(3)} s; the same three spawned by the smallest Node script that can (no jury code: the floor of a jury that is a Node process) median ${spawner.median.toFixed(3)} s, so leap-jury's own work is about ${Math.round((jury.median - spawner.median) * 1000)} ms${bare === null ? '' : `; leap-jury from a shell without NODE_EXTRA_CA_CERTS (which this machine sets for every process; leap-jury uses no TLS) median ${bare.median.toFixed(3)} s`}`,
    );
  }
}

// --- the suites of each capability: bench/suites/NAME.mjs default-exports `async (ctx) => {}` and
// reports through ctx (coldStart, check, note), so each package's figures live beside its own setup.
{
  const suites = join(root, 'bench', 'suites');
  const files = existsSync(suites)
    ? readdirSync(suites)
        .filter((f) => f.endsWith('.mjs'))
        .sort()
    : [];
  for (const file of files) {
    if (only && !only.includes(file.replace(/\.mjs$/, ''))) continue;
    console.log(`--- ${file}`);
    const { default: suite } = await import(join(suites, file));
    await suite({
      root,
      tmp: mkdtempSync(join(tmp, file.replace(/\.mjs$/, '-'))),
      RUNS,
      bin,
      has,
      median,
      quartiles,
      timeRuns,
      coldStart,
      check,
      note: (text) => {
        rows.notes.push(text);
        console.log(text);
      },
    });
  }
}

if (only) {
  rmSync(tmp, { recursive: true, force: true });
  console.log(JSON.stringify(rows, null, 2));
  process.exit(0);
}

// --- what this machine charges for fresh memory (start-up work that allocates pays it)
{
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `
    const b = Buffer.allocUnsafeSlow(8 << 20); const t = performance.now();
    for (let i = 0; i < b.length; i += 4096) b[i] = 1;
    process.stdout.write(String((performance.now() - t) / 8));`,
    ],
    { encoding: 'utf8' },
  );
  rows.notes.push(
    `first touch of fresh memory: ${Number(probe.stdout).toFixed(2)} ms per MiB (a start-up that decodes a 580 KB ledger to a 1.1 MB string pays it)`,
  );
}

// --- RESULTS.md
const NOISY_SPAN = 0.15;
const noisy = (r) => r.spread[1] - r.spread[0] > NOISY_SPAN;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  '# Benchmark results',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpu}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), Linux ${release()}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
  `- Node ${process.version}; ${RUNS} runs per start-up figure; each run times \`node -e 0\` and then the command back to back, and the ratio is the median of those paired ratios (this VM's speed drifts in bursts; pairs cancel it)`,
  `- Sandbox: ${process.env.LEAP_SANDBOX === 'off' ? "off (LEAP_SANDBOX=off): the conductor's and the engine's figures ran unsandboxed" : "on, as by default: the conductor's and the engine's figures ran every leaf, proof and suite run in bwrap (without bwrap those commands exit 2, so no figure is unsandboxed unawares)"}`,
  '- Wall times are taken by bench/time-runs.sh, a bash loop reading $EPOCHREALTIME around each command, as a shell runs it: spawnSync from this Node process would add the fork of its own heap to every figure (several ms here)',
  '',
  '## Start-up (median, ratio to `node -e 0` in the same run)',
  '',
  '| command | median ms | node -e 0 median ms | median paired ratio | middle half of the ratios | budget | |',
  '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ...rows.starts.map(
    (r) =>
      `| ${r.label} | ${r.cmd.toFixed(1)} | ${r.base.toFixed(1)} | ${r.ratio.toFixed(2)}x | ${r.spread[0].toFixed(2)}-${r.spread[1].toFixed(2)}${noisy(r) ? ' (noisy)' : ''} | ${r.budget ? `${r.budget}x` : '-'} | ${r.budget ? (r.ratio <= r.budget ? 'ok' : '**over**') : ''} |`,
  ),
  '',
  `A figure is marked noisy when the middle half of its paired ratios spans more than ${NOISY_SPAN.toFixed(2)}: the machine was not steady while it was measured, and its median says little. ${rows.starts.filter(noisy).length} of ${rows.starts.length} figures were noisy in this run.`,
  '',
  '## Other figures',
  '',
  '| figure | value | budget | |',
  '| --- | ---: | --- | --- |',
  ...rows.checks.map(
    (c) =>
      `| ${c.label} | ${c.value} | ${c.budget} | ${c.ok ? 'ok' : c.floor?.below ? `over; the budget is below its floor, ${c.floor.value}` : '**over**'} |`,
  ),
  '',
  ...rows.notes.map((n) => `- ${n}`),
  '',
];
// The test tiers' wall times are measured by tools/test.sh on a fresh clone, not here: their section is kept.
const tiers = readFileSync(join(root, 'bench', 'RESULTS.md'), 'utf8').split(/^(?=## Test tiers)/m)[1];
writeFileSync(join(root, 'bench', 'RESULTS.md'), lines.join('\n') + (tiers === undefined ? '' : `\n${tiers}`));
rmSync(tmp, { recursive: true, force: true });
console.log(`wrote bench/RESULTS.md`);

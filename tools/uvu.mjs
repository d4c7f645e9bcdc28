#!/usr/bin/env node
// Every project's test runner: uvu's own `parse` and `run`, as its bin calls them, and then an end. uvu's
// bin returns when the suites are done and leaves the exit to Node, so a test that left a handle open (a
// Redis client, a child process, a server, a timer) after a failure kept the process, c8 around it and
// the whole `npm test` waiting until CI's own limit. Here the process ends once the suites are done: at
// once when nothing is left, else after a short grace, naming what was left open, with uvu's exit code
// (a leaked handle alone fails nothing; it is reported so it can be fixed).
//
// With --jobs N (N > 1) the files run in N worker processes, each taking the next file when it is done with
// one (a package whose files each drive whole runs spends most of its time waiting on them), so the sources
// load N times, not once a file; each file's output is printed whole when it ends, with its seconds, then the
// sums. A worker that dies fails its file and is replaced.
//
// Coverage is this process's own (issue 43): Node keeps the folder it started with, so the variable is taken out
// of the environment and what the tests start (bins, fixtures, git, agents) writes none. Workers get it back; a test
// that runs sources in a child of its own passes LEAP_TEST_COVERAGE on as NODE_V8_COVERAGE.
//
//   node --import tsx ../../tools/uvu.mjs [--jobs N] DIR PATTERN [--bail]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const GRACE_MS = 5000;
const USAGE = 'Usage: node --import tsx tools/uvu.mjs [--jobs N] DIR PATTERN [--bail]\n';
const args = process.argv.slice(2);
let jobs = 1;
const jobsAt = args.indexOf('--jobs');
if (jobsAt !== -1) {
  jobs = Number(args[jobsAt + 1]);
  args.splice(jobsAt, 2);
  if (!Number.isInteger(jobs) || jobs < 1) {
    process.stderr.write(`tools/uvu.mjs: --jobs takes a whole number of at least 1\n${USAGE}`);
    process.exit(2);
  }
}
const bail = args.includes('--bail') || args.includes('-b');
const [dir, pattern, ...rest] = args.filter((a) => a !== '--bail' && a !== '-b');
if (dir === undefined || dir === '--help' || dir === '-h' || rest.length > 0) {
  process.stderr.write(USAGE);
  process.exit(dir === '--help' || dir === '-h' ? 0 : 2);
}
process.env.FORCE_COLOR ??= '1';
const coverage = process.env.NODE_V8_COVERAGE;
delete process.env.NODE_V8_COVERAGE;
if (coverage === undefined) delete process.env.LEAP_TEST_COVERAGE;
else process.env.LEAP_TEST_COVERAGE = coverage;
// What a worker prints after each file: the file's exit code follows it.
const DONE = '\u0000leap-uvu-done';
if (pattern === '--worker') await worker();
let ctx;
try {
  ctx = await parse(dir, pattern, { cwd: '.' });
  if (jobs === 1 || ctx.suites.length < 2) await run(ctx.suites, { bail });
  else process.exitCode = await runFiles(ctx.suites.map((s) => relative(dir, s.file)));
} catch (error) {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
}
// Coverage (c8) is written by Node's own exit, which process.exit runs too.
const code = process.exitCode ?? 0;
const timer = setTimeout(() => {
  // (This runner's own timer is unref'd, so it is not among them.)
  const open = process.getActiveResourcesInfo();
  process.stderr.write(
    `tools/uvu.mjs: the suites are done, but the tests left ${open.length} handle(s) open (${[...new Set(open)].join(', ')}); ending the process\n`,
  );
  process.exit(code);
}, GRACE_MS);
timer.unref();

/** A worker (`tools/uvu.mjs DIR --worker`): runs each file its standard input names, then prints DONE, its code. */
async function worker() {
  for await (const file of createInterface({ input: process.stdin })) {
    globalThis.UVU_QUEUE?.splice(0);
    try {
      await run([{ name: file, file: resolve(dir, file) }], { bail });
    } catch (error) {
      process.stderr.write(`${error?.stack ?? error}\n`);
      process.exitCode = 1;
    }
    process.stdout.write(`\n${DONE} ${process.exitCode ?? 0}\n`);
    process.exitCode = 0;
  }
  process.exit(0);
}

/** Run the files in `jobs` workers, each given the next file when it is done; resolves to 1 when any failed. */
async function runFiles(files) {
  const queue = [...files];
  const totals = { total: 0, passed: 0, skipped: 0 };
  let failed = [];
  const started = Date.now();
  const report = (file, t0, out, status) => {
    const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
    for (const key of Object.keys(totals))
      totals[key] += Number(new RegExp(`${key}:\\s+(\\d+)`, 'i').exec(plain)?.[1] ?? 0);
    if (status !== 0) failed.push(file);
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    process.stdout.write(
      `${out.replace(/\n*$/, '\n\n')}  (${file}: ${seconds} s${status === 0 ? '' : `, exit ${status}`})\n\n`,
    );
  };
  // One worker: resolves when the queue is empty (or --bail saw a failure), replaced by another when it dies.
  const work = () =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), dir, '--worker'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: coverage === undefined ? process.env : { ...process.env, NODE_V8_COVERAGE: coverage },
      });
      let file = null;
      let t0 = 0;
      let out = '';
      const next = () => {
        file = queue.length > 0 && !(bail && failed.length > 0) ? queue.shift() : null;
        if (file === null) return child.stdin.end();
        t0 = Date.now();
        out = '';
        child.stdin.write(`${file}\n`);
      };
      const take = (data) => {
        out += data;
        const at = out.indexOf(DONE);
        const end = out.indexOf('\n', at + DONE.length);
        if (at === -1 || end === -1) return;
        report(file, t0, out.slice(0, at), Number(out.slice(at + DONE.length, end)));
        next();
      };
      child.stdout.setEncoding('utf8').on('data', take);
      child.stderr.setEncoding('utf8').on('data', (data) => (file === null ? process.stderr.write(data) : take(data)));
      child.on('close', (status, signal) => {
        if (file === null) return resolve();
        report(file, t0, out, status || signal || 1); // ended before the file did: a failure, whatever its code
        resolve(work());
      });
      next();
    });
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, work));
  failed = failed.sort();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `  Total:     ${totals.total}\n  Passed:    ${totals.passed}\n  Skipped:   ${totals.skipped}\n  Duration:  ${seconds} s, ${files.length} files, ${jobs} at a time\n`,
  );
  if (failed.length > 0) process.stdout.write(`  Failed:    ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

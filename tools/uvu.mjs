#!/usr/bin/env node
// Every project's test runner: uvu's own `parse` and `run`, as its bin calls them, and then an end. uvu's
// bin returns when the suites are done and leaves the exit to Node, so a test that left a handle open (a
// Redis client, a child process, a server, a timer) after a failure kept the process, c8 around it and
// the whole `npm test` waiting until CI's own limit. Here the process ends once the suites are done: at
// once when nothing is left, else after a short grace, naming what was left open, with uvu's exit code
// (a leaked handle alone fails nothing; it is reported so it can be fixed).
//
// With --jobs N (N > 1) each test file runs in a process of its own, N at a time (a package whose files
// each drive whole runs spends most of its time waiting on them); each file's output is printed whole when
// it ends, with its seconds, then the sums. Coverage still gathers: the processes inherit c8's variable.
//
//   node --import tsx ../../tools/uvu.mjs [--jobs N] DIR PATTERN [--bail]
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
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

/** Run each file in a child of this runner, `jobs` at a time; resolves to 1 when any failed. */
async function runFiles(files) {
  const queue = [...files];
  const totals = { total: 0, passed: 0, skipped: 0 };
  let failed = [];
  const started = Date.now();
  const one = (file) =>
    new Promise((resolve) => {
      const t0 = Date.now();
      const exact = `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), dir, exact], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const chunks = [];
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
      child.on('close', (status, signal) => {
        const out = Buffer.concat(chunks).toString();
        const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
        for (const key of Object.keys(totals))
          totals[key] += Number(new RegExp(`${key}:\\s+(\\d+)`, 'i').exec(plain)?.[1] ?? 0);
        if (status !== 0) failed.push(file);
        process.stdout.write(
          `${out}  (${file}: ${((Date.now() - t0) / 1000).toFixed(1)} s${status === 0 ? '' : `, exit ${status ?? signal}`})\n\n`,
        );
        resolve();
      });
    });
  const worker = async () => {
    while (queue.length > 0 && !(bail && failed.length > 0)) await one(queue.shift());
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  failed = failed.sort();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `  Total:     ${totals.total}\n  Passed:    ${totals.passed}\n  Skipped:   ${totals.skipped}\n  Duration:  ${seconds} s, ${files.length} files, ${jobs} at a time\n`,
  );
  if (failed.length > 0) process.stdout.write(`  Failed:    ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

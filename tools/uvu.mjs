#!/usr/bin/env node
// Every project's test runner: uvu's own `parse` and `run`, as its bin calls them, and then an end. uvu's
// bin returns when the suites are done and leaves the exit to Node, so a test that left a handle open (a
// Redis client, a child process, a server, a timer) after a failure kept the process, c8 around it and
// the whole `npm test` waiting until CI's own limit. Here the process ends once the suites are done: at
// once when nothing is left, else after a short grace, naming what was left open, with uvu's exit code
// (a leaked handle alone fails nothing; it is reported so it can be fixed).
//
//   node --import tsx ../../tools/uvu.mjs DIR PATTERN [--bail]
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const GRACE_MS = 5000;
const args = process.argv.slice(2);
const bail = args.includes('--bail') || args.includes('-b');
const [dir, pattern, ...rest] = args.filter((a) => a !== '--bail' && a !== '-b');
if (dir === undefined || dir === '--help' || dir === '-h' || rest.length > 0) {
  process.stderr.write('Usage: node --import tsx tools/uvu.mjs DIR PATTERN [--bail]\n');
  process.exit(dir === '--help' || dir === '-h' ? 0 : 2);
}
process.env.FORCE_COLOR ??= '1';
try {
  const ctx = await parse(dir, pattern, { cwd: '.' });
  await run(ctx.suites, { bail });
} catch (error) {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
}
// Coverage (c8) is written by Node's own exit, which process.exit runs too.
const code = process.exitCode ?? 0;
const timer = setTimeout(() => {
  // (This runner's own timer is unref'd, so it is not among them.)
  const open = process.getActiveResourcesInfo();
  process.stderr.write(`tools/uvu.mjs: the suites are done, but the tests left ${open.length} handle(s) open (${[...new Set(open)].join(', ')}); ending the process\n`);
  process.exit(code);
}, GRACE_MS);
timer.unref();

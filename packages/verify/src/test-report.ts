// Counts and failed tests from a runner's output, one table of summaries; a runner it does not know reports nothing.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { writeFd } from '@leap/core';
import { runSuite, type SuiteOptions } from './run-suite.js';

/** Tests that ran (passed, failed) and skipped (skip, todo, pending, ignored, xfail, deselected, filtered out). */
export type TestCounts = { ran: number; skipped: number };

function words(text: string, ran: RegExp, skipped: RegExp): TestCounts {
  const tally = { ran: 0, skipped: 0 };
  for (const [, count, word] of text.matchAll(/(\d+) ([a-z]+)/gi)) {
    if (ran.test(word as string)) tally.ran += Number(count);
    else if (skipped.test(word as string)) tally.skipped += Number(count);
  }
  return tally;
}

const n = (m: RegExpExecArray, i: number) => Number(m[i] ?? 0);
type Summary = { runners: string; line: RegExp; read: (m: RegExpExecArray) => TestCounts };

function listed(runners: string, line: RegExp, ran: RegExp, skip: RegExp): Summary {
  return { runners, line, read: (m) => words(m[1] as string, ran, skip) };
}

function counted(runners: string, line: RegExp, kind: keyof TestCounts): Summary {
  return { runners, line, read: (m) => ({ ran: 0, skipped: 0, [kind]: n(m, 1) }) };
}

const PASSED = /^(passed|failed)$/;
const PYTEST_WORD = '(?:passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?)';
const PYTEST = new RegExp(`^(?:=+ )?((?:\\d+ ${PYTEST_WORD}(?:, )?)+) in [\\d.]+s`, 'gm');
const UNITTEST = /^Ran (\d+) tests? in [\d.]+s\n\n(?:OK|FAILED)(?: \((.*)\))?$/gm;

const SUMMARIES: readonly Summary[] = [
  listed('vitest', /^\s*Tests\s+(.+?)\s+\(\d+\)$/gm, PASSED, /^(skipped|todo)$/),
  listed('jest', /^Tests:\s+(.+), \d+ total$/gm, PASSED, /^(skipped|todo|pending)$/),
  listed('pytest', PYTEST, /^(passed|failed|xpassed)$/, /^(skipped|deselected|xfailed)$/),
  { runners: 'unittest', line: UNITTEST, read: (m) => unittest(n(m, 1), m[2]) },
  {
    runners: 'cargo test',
    line: /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; (\d+) filtered out/gm,
    read: (m) => ({ ran: n(m, 1) + n(m, 2), skipped: n(m, 3) + n(m, 4) }),
  },
  counted('mocha', /^ {2}(\d+) (?:passing \(\w+\)|failing)$/gm, 'ran'),
  counted('mocha', /^ {2}(\d+) pending$/gm, 'skipped'),
  // ava leaves out the passed count of a run with failures: its `ran` is then too low, never too high.
  counted('ava', /^ {2}(\d+) (?:tests? (?:passed|failed)|known failures?)$/gm, 'ran'),
  counted('ava', /^ {2}(\d+) tests? (?:skipped|todo)$/gm, 'skipped'),
];

function unittest(total: number, detail = ''): TestCounts {
  const count = (re: RegExp) => Number(re.exec(detail)?.[1] ?? 0);
  const skip = count(/skipped=(\d+)/) + count(/expected failures=(\d+)/);
  return { ran: total - skip, skipped: skip };
}

// node:test (tap and spec) and TAP's `# pass N` block (mocha's tap reporter, tap, ava --tap).
const TAP_BLOCK = /^(?:#|ℹ) tests (\d+)\n(?:(?:#|ℹ) \w+ [\d.]+\n?)*/gm;

export function readCounts(output: string): TestCounts | null {
  const text = plain(output);
  const tallies: TestCounts[] = [];
  for (const m of text.matchAll(TAP_BLOCK)) {
    const pairs = [...m[0].matchAll(/^(?:#|ℹ) (\w+) ([\d.]+)$/gm)].map(([, k, v]) => [k, Number(v)]);
    const block = Object.fromEntries(pairs) as Record<string, number>;
    const skip = (block.skipped ?? 0) + (block.todo ?? 0);
    const failed = (block.fail ?? 0) + (block.cancelled ?? 0);
    tallies.push({ ran: block.pass === undefined ? (block.tests ?? 0) - skip : block.pass + failed, skipped: skip });
  }
  for (const summary of SUMMARIES) for (const m of text.matchAll(summary.line)) tallies.push(summary.read(m));
  // go test lists each test only with -v (its `=== RUN` lines); without, it prints no count.
  if (/^=== RUN /m.test(text)) {
    const go = [...text.matchAll(/^\s*--- (PASS|FAIL|SKIP): /gm)].map((m) => m[1]);
    tallies.push({ ran: go.filter((s) => s !== 'SKIP').length, skipped: go.filter((s) => s === 'SKIP').length });
  }
  if (tallies.length === 0) return null;
  return tallies.reduce((a, b) => ({ ran: a.ran + b.ran, skipped: a.skipped + b.skipped }));
}

const FAILED = [
  /^\s*not ok \d+ - (.+?)(?: # .*)?$/gm,
  /^\s*✖ (.+?) \([\d.]+m?s\)$/gm,
  /^\s*(?:×|✗) (.+?)(?: \d+m?s)?$/gm,
  /^ FAIL {2}(.+ > .+)$/gm,
  /^\s*✕ (.+?)(?: \(\d+ m?s\))?$/gm,
  /^\s*● (?!Test suite failed to run$)(.+)$/gm,
  /^ {2}\d+\) ((?:.+\n {5,})*.+):$/gm,
  /^\s*✘ (?:\[fail\]: )?(.+?)(?: {2}.*)?$/gm,
  /^(?:FAILED|ERROR) (\S+::\S+)/gm,
  /^(?:FAIL|ERROR): (.+)$/gm,
  /^test (\S+) \.\.\. FAILED$/gm,
  /^\s*--- FAIL: (\S+)/gm,
];

export function failedTests(output: string): string[] {
  const text = plain(output);
  const found: { at: number; name: string }[] = [];
  const name = (m: RegExpExecArray) => (m[1] as string).replace(/\s*\n\s*/g, ' ').trim();
  for (const re of FAILED) for (const m of text.matchAll(re)) found.push({ at: m.index, name: name(m) });
  const names = [...new Set(found.sort((a, b) => a.at - b.at).map((f) => f.name))];
  // vitest names a test twice (the longer stays); node:test's TAP names the file too, dropped when tests are named.
  const tests = names.filter((name) => !names.some((other) => other !== name && other.endsWith(` ${name}`)));
  const notFiles = tests.filter((name) => !/^\/\S+\.\w+$/.test(name));
  return notFiles.length > 0 ? notFiles : tests;
}

export function lastWords(text: string, max: number): string | null {
  const lines = stripVTControlCharacters(text).split(/[\r\n]+/);
  const line = lines.map((l) => l.trim()).findLast((l) => l !== '');
  if (line === undefined) return null;
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

const plain = (output: string) => stripVTControlCharacters(output).replace(/\r\n?/g, '\n');
export type SuiteRun = { code: number; output: string };

/** Output to a file of its own (runs made at once never mix), then to `suiteLog` or our stderr. */
export async function runCaptured(options: SuiteOptions, cwd: string): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'leap-suite-out-'));
  try {
    const log = join(dir, 'suite.log');
    const code = await runSuite({ ...options, suiteLog: log }, cwd);
    const output = readFileSync(log, 'utf8');
    if (options.suiteLog === undefined) writeFd(2, output);
    else appendFileSync(options.suiteLog, output);
    return { code, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

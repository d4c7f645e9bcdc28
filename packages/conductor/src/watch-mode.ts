// A test command's suite runs: one that would watch instead of ending, seen before it runs and refused, not rewritten
// (the README says why); the baseline; the leaves' and suite runs' limits.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEFAULT_IDLE_TIMEOUT_S, formatSeconds, orElse, readEvents, readTimeLimit, shellWord } from '@leap/core';
import type { TimeLimit } from '@leap/core';
import type { SuiteLimitError } from '@leap/verify';
import { Bail } from './bail-causes.js';
import type { RunContext } from './conductor.js';
import type { ConductorSetup } from './run-options.js';

/** `runForm`: `vitest run`, or `npx vitest run` when the words came from a script. */
export type WatchMode = { seen: string; where: string; runForm: string };

// Words that only start the command that follows them.
const PREFIXES = new Set(['env', 'cross-env', 'time', 'nice', 'exec', 'command', 'npx', 'pnpx', 'bunx']);
const SCRIPT_RUNNERS = new Set(['npm', 'pnpm', 'yarn']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
// Of a package manager's subcommands, those that are not a script's name.
const MANAGER_COMMANDS = new Set('install i add ci exec dlx x publish pack link remove update init create'.split(' '));

export function watchModeOf(root: string, command: string, where = 'the command line', depth = 0): WatchMode | null {
  for (const words of simpleCommands(command)) {
    const found = watchOf(root, words, where, depth);
    if (found !== null) return found;
  }
  return null;
}

// `lead`: the words before `all` that start it (`pnpm exec`), kept in the run form.
function watchOf(root: string, all: string[], where: string, depth: number, lead: string[] = []): WatchMode | null {
  const first = all.findIndex((w) => !(ASSIGNMENT.test(w) || PREFIXES.has(w) || /^-/.test(w)));
  const i = first < 0 ? all.length : first;
  const words = all.slice(i);
  const program = (words[0] ?? '').split('/').pop() as string;
  const args = words.slice(1);
  const before = [...lead, ...all.slice(0, i)];
  if (SCRIPT_RUNNERS.has(program)) return scriptWatch(root, [...before, words[0] as string], args, where, depth);
  const watching = (a: string) =>
    (WATCH_FLAGS[program] ?? []).some((flag) => a === flag || a === `${flag}=true`) ||
    (program === 'node' && /^--watch-path(=|$)/.test(a));
  let dropped = args.filter(watching);
  const sub = args.find((a) => !a.startsWith('-'));
  if (program === 'vitest' && (sub === 'watch' || sub === 'dev')) dropped = [...dropped, sub];
  if (program === 'cargo' && sub === 'watch') return { seen: 'cargo watch', where, runForm: 'cargo test' };
  if (dropped.length === 0) return null;
  const rest = args.filter((a) => !dropped.includes(a));
  if (program === 'vitest' && rest[0] !== 'run') rest.unshift('run');
  // A script finds the project's bins on PATH; on a command line they need npx.
  const at = before.findIndex((w) => !ASSIGNMENT.test(w));
  const starter = at < 0 ? (words[0] as string) : (before[at] as string);
  if (depth > 0 && program !== 'node' && !['npx', 'npm', 'pnpm', 'yarn', 'env'].includes(starter))
    before.splice(at < 0 ? before.length : at, 0, 'npx');
  return {
    seen: [program, ...dropped].join(' '),
    where,
    runForm: [...before, words[0] as string, ...rest].map(shellWord).join(' '),
  };
}

// The flags that make each runner watch (vitest's `watch` and `dev` subcommands aside).
const WATCH_FLAGS: Record<string, string[]> = {
  vitest: ['--watch', '-w'],
  jest: ['--watch', '--watchAll'],
  mocha: ['--watch', '-w'],
  ava: ['--watch', '-w'],
  node: ['--watch'],
};

// npm, pnpm, yarn: the named script, read in turn (three deep at most); pnpm's and yarn's `X` with no script is bin X.
function scriptWatch(root: string, lead: string[], args: string[], where: string, depth: number): WatchMode | null {
  const manager = (lead.at(-1) as string).split('/').pop();
  const words = args.filter((a) => !a.startsWith('-'));
  const first = words[0];
  const from = (at: number) => watchOf(root, args.slice(at), where, depth, [...lead, ...args.slice(0, at)]);
  if (first === 'exec' || first === 'dlx' || first === 'x') return from(args.indexOf(first) + 1);
  const name = first === 'run' || first === 'run-script' ? words[1] : first === 't' ? 'test' : first;
  if (name === undefined || depth >= 3 || MANAGER_COMMANDS.has(name)) return null;
  const script = scriptOf(root, name);
  if (typeof script === 'string')
    return watchModeOf(root, script, `the ${JSON.stringify(name)} script of package.json (\`${script}\`)`, depth + 1);
  return manager !== 'npm' && name === first ? from(args.indexOf(first)) : null;
}

function scriptOf(root: string, name: string): unknown {
  const pkg = orElse(() => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')), null);
  return (pkg as { scripts?: Record<string, unknown> } | null)?.scripts?.[name];
}

// Split at `;`, `&`, `|` and newlines outside quotes, quotes taken out: enough to read a command; nothing runs it.
function simpleCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i] as string;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + (line[++i] as string);
    } else if (/\s/.test(c) && c !== '\n') {
      endWord();
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      endWord();
      if (words.length > 0) commands.push(words);
      words = [];
    } else {
      word = (word ?? '') + c;
    }
  }
  endWord();
  if (words.length > 0) commands.push(words);
  return commands;
}

/** The suite-limit narration for a watch mode seen before running: what watches, where, and the run form to give. */
function watchModeNarration(command: string, watch: WatchMode): string {
  const runs =
    watch.where === 'the command line' ? `it runs \`${watch.seen}\`` : `${watch.where} runs \`${watch.seen}\``;
  return (
    `The test command \`${command}\` would not end: ${runs}, a watch mode that waits for file changes, ` +
    "and every suite run is ended at the run's time or idle limit. " +
    `Use its run form \`${watch.runForm}\`, which runs the suite once: run again with ` +
    `--test-cmd ${shellWord(watch.runForm)}${watch.where === 'the command line' ? '' : ', or make the script run it'}.`
  );
}

// Last lines of runners waiting in a watch mode: vitest's and jest's, node --test's watcher, nodemon's, mocha's.
const WATCH_LINE =
  /(waiting|watching) for (file )?changes|press h to show help|watch usage|\[nodemon\]|ℹ \[mocha\] waiting/i;

/** The run's limit as given (`15m`, `300`), and where it came from (`--timeout`, `the default`...). */
type SuiteLimitFacts = { limit: 'timeout' | 'idle'; lastLine: string | null; value: string; source: string };

export function suiteLimitNarration(root: string, command: string, facts: SuiteLimitFacts): string {
  const limit =
    facts.limit === 'timeout'
      ? `its time limit (${facts.value}, ${facts.source})`
      : `its idle limit (${facts.value} with no output and no CPU, ${facts.source})`;
  const said =
    facts.lastLine === null ? 'It printed nothing.' : `Its last output line: ${JSON.stringify(facts.lastLine)}.`;
  const watch = watchModeOf(root, command);
  const flag =
    facts.source === 'VERI_SUITE_TIMEOUT' ? facts.source : facts.limit === 'timeout' ? '--timeout' : '--idle-timeout';
  const lead = /^The test command `[^`]*` would not end: /;
  const advice =
    watch !== null
      ? watchModeNarration(command, watch).replace(lead, 'It did not end because ')
      : facts.lastLine !== null && WATCH_LINE.test(facts.lastLine)
        ? 'It waits for file changes: a watch mode. Give a test command that runs the suite once and exits ' +
          '(`vitest run`, not `vitest --watch`; `jest`, not `jest --watch`) with --test-cmd, then run again.'
        : `If the suite needs longer, raise ${flag}; ` +
          'if it waits for something (a server, input, a lock), make it end by itself. Then run again.';
  const ended = `The test command \`${command}\` did not end: ${limit} ended it, with every process it started.`;
  return `${ended} ${said} ${advice}`;
}

// The suite on the start tree, run as ground truth's (a `suite` event), read back on a resume; the limits.
const TAIL_LINES = 8;

export async function runBaseline(run: RunContext, where: string): Promise<void> {
  // A watch mode seen on the command line or in the script it calls would only end at a limit: named at once.
  const watch = watchModeOf(run.root, run.testCmd);
  if (watch !== null) throw new Bail('suite-limit', watchModeNarration(run.testCmd, watch));
  const { runBaselineTwice, SuiteLimitError } = await import('@leap/verify');
  const log = run.paths.err('baseline');
  writeFileSync(log, '');
  // Twice: a test that passes once and fails once is flaky, named now and never blamed on a step.
  const suite = { testCmd: run.testCmd, suiteLog: log, stateDir: run.paths.dir, sandbox: run.setup.sandbox };
  const { run: first, flaky } = await runBaselineTwice({ ...suite, env: suiteEnv(run) }, run.root).catch((error) => {
    throw error instanceof SuiteLimitError ? suiteLimitBail(run, error) : error;
  });
  const said = 'flaky before any change (passed once and failed once on the same tree; never blamed on a step)';
  if (flaky.length > 0) await run.say(`${said}: ${flaky.join(', ')}`);
  if (first.code === 0) return;
  // runSuite's first line names the folder it ran in; the suite's own output follows.
  const tail = first.output.split('\n').slice(1).join('\n').trim().split('\n').slice(-TAIL_LINES).join('\n');
  throw new Bail(
    'baseline-red',
    `The test suite fails before any change (\`${run.testCmd}\` exited ${first.code}), ` +
      `so a red test could not be told from a broken build. Make it pass on ${where} first. Its last lines:\n${tail}`,
  );
}

/** The trees whose suite passed with this run's test command, as the event log's `suite` events of this issue say. */
export async function passedTreesOfLog(run: RunContext): Promise<string[]> {
  const trees = new Set<string>();
  for (const { event } of readEvents(run.paths.events)) {
    if (
      event.event === 'suite' &&
      event.code === 0 &&
      event.limit === undefined &&
      event.tree !== null &&
      event.command === run.testCmd &&
      event.issue === run.issue
    )
      trees.add(event.tree);
  }
  return [...trees];
}

/** A suite run's (and a leaf's) environment: --timeout (or leap.config.json) wins over VERI_TIMEOUT and the file. */
export function suiteEnv(run: RunContext): NodeJS.ProcessEnv {
  const { timeout } = run.setup.effective;
  const env = { ...run.env, VERI_TEST_CMD: run.testCmd, VERI_ISSUE: String(run.issue) };
  const idle = idleLimit(run.setup).value;
  return { ...env, ...(timeout === undefined ? {} : { VERI_TIMEOUT: timeout }), VERI_IDLE_TIMEOUT: idle };
}

export function suiteLimitBail(run: RunContext, error: SuiteLimitError): Bail {
  const own = { value: run.env.VERI_SUITE_TIMEOUT ?? '', source: error.source };
  const { value, source } =
    error.limit === 'idle' ? idleLimit(run.setup) : error.source === 'VERI_SUITE_TIMEOUT' ? own : timeLimit(run);
  const facts = { limit: error.limit, lastLine: error.lastLine, value, source };
  return new Bail('suite-limit', suiteLimitNarration(run.root, run.testCmd, facts));
}

function idleLimit(setup: ConductorSetup): { value: string; source: string } {
  const { idleTimeout } = setup.effective;
  if (idleTimeout !== undefined) return { value: idleTimeout, source: setup.sources.idleTimeout ?? '--idle-timeout' };
  if (setup.env.VERI_IDLE_TIMEOUT !== undefined && setup.env.VERI_IDLE_TIMEOUT !== '')
    return { value: setup.env.VERI_IDLE_TIMEOUT, source: 'VERI_IDLE_TIMEOUT' };
  return { value: `${DEFAULT_IDLE_TIMEOUT_S}s`, source: 'the default' };
}

function timeLimit(run: RunContext): { value: string; source: string } {
  const { timeout } = run.setup.effective;
  if (timeout !== undefined) return { value: timeout, source: run.setup.sources.timeout ?? '--timeout' };
  let limit: TimeLimit;
  try {
    limit = readTimeLimit(run.paths.dir, run.issue, run.env);
  } catch (error) {
    return { value: 'unreadable', source: `${(error as Error).message}: every leaf will refuse to start` };
  }
  if (limit.source === 'VERI_TIMEOUT') return { value: run.env.VERI_TIMEOUT as string, source: 'VERI_TIMEOUT' };
  const source = limit.source === 'default' ? 'the default' : relative(run.root, limit.source);
  return { value: formatSeconds(limit.ms), source };
}

export function limitsLine(run: RunContext): string {
  const time = timeLimit(run);
  const idle = idleLimit(run.setup);
  return (
    `leaves: time limit ${time.value} (${time.source}), idle limit ${idle.value} ` +
    `(${idle.source}; no output and no CPU progress that long is killed-stuck)`
  );
}

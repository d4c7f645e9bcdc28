// `leap init` (CONTRACT section 14, issue 23 §2): a repository made ready in one command. It finds what it
// can (the test command as the conductor detects it, the agent CLIs on PATH and their logins), asks on a
// terminal or takes flags with --yes, shows every file before writing, and never overwrites one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LeapError, UsageError, parseCli, resolveStateDir, runGitSync, shellWord, showValue, statePaths, type SubcommandIo } from '@leap/core';
import { findAgentClis, proposeRoles, type AgentCli } from './agent-clis.js';
import {
  DEFAULT_AGENTS_FILE,
  DEFAULT_IDLE_TIMEOUT,
  DEFAULT_ISSUE_TITLE,
  DEFAULT_TIMEOUT,
  checkDuration,
  checkTitle,
  firstIssueNumber,
  planFiles,
  repoRelative,
  type InitChoices,
  type PlannedFile,
} from './init-plan.js';
import { DEFAULT_SKILLS_DIR, findSkillsDir, readSkills } from './skills-source.js';
import { testCommandCandidates, type TestCommandCandidate } from './test-command.js';

export const INIT_USAGE = `Usage: leap init [--yes] [--json] [--test-cmd CMD] [--tests GLOB]... [--timeout DURATION]
                 [--idle-timeout DURATION] [--agents FILE] [--issue-title TITLE] [--skills [DIR]]

Sets up this git repository for leap tdd: writes leap.config.json (the test command, detected as
leap tdd run detects it, test globs, time limits, the agents), an agents file naming the agent CLIs found
on PATH (claude, codex, gemini), the state folder's .gitignore and a first issue under the local
tracker's folder (.tdd/issues/N.md), and with --skills the skills, copied into .claude/skills/ or DIR.
Every file is shown before it is written; a file that exists is kept, never rewritten. On a terminal it
asks; otherwise it writes only with --yes. It ends by printing the next commands.

Options:
  --yes, -y                 write without asking (flags and what was detected decide)
  --test-cmd CMD            the test command (else the one detected; several possible needs this)
  --tests GLOB              files that hold tests, beside the built-in conventions (repeatable)
  --timeout DURATION        each leaf's time limit (default ${DEFAULT_TIMEOUT}); DURATION is 90, 90s, 15m, 1h
  --idle-timeout DURATION   the idle limit of a leaf (default ${DEFAULT_IDLE_TIMEOUT}; 0 is off)
  --agents FILE             the agents file, inside the repository (default ${DEFAULT_AGENTS_FILE})
  --issue-title TITLE       the first issue's title (default "${DEFAULT_ISSUE_TITLE}")
  --skills [DIR]            also copy the skills (leap, tdd) into DIR (default ${DEFAULT_SKILLS_DIR})
  --json                    print what was found and written as one JSON object
  --help                    this text

Exit codes:
  0  written (or nothing was missing)
  1  declined at the terminal's question: nothing written
  2  bad input: not a git repository, a bad option or leap.config.json, several test commands and no
     --test-cmd with --yes, or no terminal and no --yes; nothing written`;

const OPTIONS = {
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  'test-cmd': { type: 'string' },
  tests: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  'idle-timeout': { type: 'string' },
  agents: { type: 'string' },
  'issue-title': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A question on the terminal: the answer, or the default for an empty one. */
export type Ask = (question: string) => Promise<string>;

/** What `leap init` found, decided and did (its --json). */
export interface InitReport {
  root: string;
  written: boolean;
  testCommand: { command: string; source: string } | null;
  candidates: TestCommandCandidate[];
  agents: AgentCli[];
  issue: number;
  files: { path: string; what: string; status: 'written' | 'kept' | 'not-written' }[];
  next: string[];
}

/** `leap init`: on a terminal it asks (unless --yes); `ask` replaces the terminal in tests. */
export async function initMain(argv: string[], io: SubcommandIo, ask?: Ask): Promise<number> {
  const { skills, rest } = takeSkills(argv);
  const { values, positionals } = parseCli(rest, OPTIONS, INIT_USAGE);
  if (values.help === true) {
    io.stdout(`${INIT_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${showValue(positionals[0])}\n${INIT_USAGE}`);
  const root = repositoryRoot(io.cwd);
  const yes = values.yes === true;
  const tty = ask !== undefined || yes || values.json === true || !io.isTTY || process.stdin.isTTY !== true ? undefined : await terminalAsk(io);
  try {
    return await initIn(root, io, values, skills, tty ?? ask);
  } finally {
    tty?.close();
  }
}

async function initIn(root: string, io: SubcommandIo, values: Values, skills: string | null, terminal: Ask | undefined): Promise<number> {
  // An existing config is the user's: checked with the conductor's own reader (a bad one is exit 2), kept as it is.
  const { readProjectConfig } = await import('@leap/conductor');
  const existing = readProjectConfig(root)?.config ?? null;
  const yes = values.yes === true;
  const choices = await decide(root, io, values, skills, existing, terminal);
  const issue = firstIssueNumber(statePaths(resolveStateDir(io.env, root)).issuesDir);
  const files = planFiles(choices.choices, issue);
  if (values.json !== true) io.stdout(showPlan(choices.choices, choices.testCommand, files));
  const fresh = files.filter((f) => !f.exists);
  let write = fresh.length > 0;
  if (write && !yes) {
    if (terminal === undefined) {
      if (values.json === true) io.stdout(`${JSON.stringify(report(choices, files, [], false, issue))}\n`);
      throw new UsageError('not on a terminal and no --yes: nothing written (run again with --yes to write the files shown)');
    }
    const answer = (await terminal(`Write ${fresh.length} new file${fresh.length === 1 ? '' : 's'}? [Y/n] `)).trim().toLowerCase();
    write = answer === '' || answer === 'y' || answer === 'yes';
    if (!write) {
      if (values.json === true) io.stdout(`${JSON.stringify(report(choices, files, [], false, issue))}\n`);
      else io.stdout('Nothing written.\n');
      return 1;
    }
  }
  const written = write ? writeNew(root, fresh) : [];
  const result = report(choices, files, written, write, issue, tracked(root, written));
  io.stdout(values.json === true ? `${JSON.stringify(result)}\n` : showEnd(files, written, result.next));
  return 0;
}

// `--skills` takes an optional folder, which parseArgs cannot say: it is read here, before the rest.
function takeSkills(argv: string[]): { skills: string | null; rest: string[] } {
  const rest: string[] = [];
  let skills: string | null = null;
  const valued = new Set(
    Object.entries(OPTIONS)
      .filter(([, o]) => o.type === 'string')
      .map(([name]) => `--${name}`),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (valued.has(arg)) {
      rest.push(arg, ...(i + 1 < argv.length ? [argv[++i] as string] : []));
    } else if (arg === '--skills') {
      const next = argv[i + 1];
      skills = next !== undefined && !next.startsWith('-') ? (i++, next) : DEFAULT_SKILLS_DIR;
    } else if (arg.startsWith('--skills=')) {
      skills = arg.slice('--skills='.length);
    } else {
      rest.push(arg);
    }
  }
  return { skills, rest };
}

function repositoryRoot(cwd: string): string {
  const ran = runGitSync(['rev-parse', '--show-toplevel'], { cwd, allowFailure: true });
  if (ran.code !== 0) throw new UsageError(`not in a git repository (${cwd}): run leap init at the top of one, or git init first`);
  return ran.stdout.replace(/\n$/, '');
}

interface Decided {
  choices: InitChoices;
  testCommand: { command: string; source: string } | null;
  candidates: TestCommandCandidate[];
}

type Values = ReturnType<typeof parseCli<typeof OPTIONS>>['values'];

async function decide(root: string, io: SubcommandIo, values: Values, skillsGiven: string | null, existing: Record<string, unknown> | null, ask: Ask | undefined): Promise<Decided> {
  const candidates = await testCommandCandidates(root);
  let testCommand: Decided['testCommand'] = null;
  if (values['test-cmd'] !== undefined) {
    if (values['test-cmd'].trim() === '') throw new UsageError('Expected --test-cmd to be a command, got ""');
    testCommand = { command: values['test-cmd'], source: '--test-cmd' };
  } else if (typeof existing?.testCommand === 'string') {
    testCommand = { command: existing.testCommand, source: 'leap.config.json' };
  } else if (candidates.length === 1) {
    const only = candidates[0] as TestCommandCandidate;
    testCommand = { command: only.command, source: `detected: ${only.because}` };
  } else if (candidates.length > 1 && ask === undefined && values.yes === true) {
    throw new UsageError(`several test commands are possible, give one with --test-cmd: ${candidates.map((c) => `${showValue(c.command)} (${c.because})`).join(', ')}`);
  }
  let timeout = checkDuration('--timeout', values.timeout ?? DEFAULT_TIMEOUT);
  let idleTimeout = checkDuration('--idle-timeout', values['idle-timeout'] ?? DEFAULT_IDLE_TIMEOUT);
  let issueTitle = checkTitle(values['issue-title'] ?? DEFAULT_ISSUE_TITLE);
  const agentsFile = repoRelative(root, '--agents', values.agents ?? (typeof existing?.agents === 'string' ? existing.agents : DEFAULT_AGENTS_FILE));
  let skillsDir = skillsGiven === null ? null : repoRelative(root, '--skills', skillsGiven);
  const testFiles = [...(values.tests ?? [])];
  for (const glob of testFiles) if (glob.trim() === '') throw new UsageError('Expected --tests to be a glob, got ""');
  if (ask !== undefined) {
    if (values['test-cmd'] === undefined) testCommand = await askTestCommand(ask, testCommand, candidates);
    if (values.tests === undefined) {
      const globs = (await ask('Globs of files holding tests beside the conventions, space-separated [none]: ')).trim();
      if (globs !== '') testFiles.push(...globs.split(/\s+/));
    }
    if (values.timeout === undefined) timeout = await askValid(ask, `Each leaf's time limit [${timeout}]: `, timeout, (v) => checkDuration('timeout', v));
    if (values['idle-timeout'] === undefined) idleTimeout = await askValid(ask, `A leaf's idle limit (0 is off) [${idleTimeout}]: `, idleTimeout, (v) => checkDuration('idle timeout', v));
    if (values['issue-title'] === undefined) issueTitle = await askValid(ask, `The first issue's title [${issueTitle}]: `, issueTitle, checkTitle);
    if (skillsDir === null && /^y/i.test((await ask(`Copy the skills into ${DEFAULT_SKILLS_DIR}/? [y/N] `)).trim())) skillsDir = DEFAULT_SKILLS_DIR;
  }
  const agents = await findAgentClis(root, io.env);
  const roles = proposeRoles(agents);
  const skills = skillsDir === null ? null : { dir: skillsDir, files: readSkills(findSkillsDir()) };
  const schemaPath = 'node_modules/@leap/conductor/schemas/leap-config.schema.json';
  const choices: InitChoices = {
    root,
    env: io.env,
    testCommand: testCommand?.command ?? null,
    testFiles,
    timeout,
    idleTimeout,
    agentsFile,
    agents,
    ...(typeof existing?.developer === 'string' ? {} : roles),
    issueTitle,
    skills,
    schema: existsSync(join(root, schemaPath)) ? `./${schemaPath}` : null,
  };
  // What is written is what the conductor reads: checked with its own schema first.
  const { projectConfigSchema } = await import('@leap/conductor');
  const config = JSON.parse((planFiles(choices, 1)[0] as PlannedFile).content) as unknown;
  const parsed = projectConfigSchema.safeParse(config);
  if (!parsed.success) throw new UsageError(`the config leap init would write is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { choices, testCommand, candidates };
}

async function askTestCommand(ask: Ask, known: Decided['testCommand'], candidates: TestCommandCandidate[]): Promise<Decided['testCommand']> {
  if (known === null && candidates.length > 1) {
    const list = candidates.map((c, i) => `  ${i + 1}. ${c.command}  (${c.because})`).join('\n');
    const answer = (await ask(`Several test commands are possible:\n${list}\nWhich one (a number, or type a command) [1]: `)).trim();
    const pick = candidates[(answer === '' ? 1 : /^[0-9]+$/.test(answer) ? Number(answer) : 0) - 1];
    return pick === undefined ? { command: answer, source: 'typed' } : { command: pick.command, source: `chosen: ${pick.because}` };
  }
  const shown = known === null ? 'none detected; empty leaves it out' : known.command;
  const answer = (await ask(`Test command [${shown}]: `)).trim();
  return answer === '' ? known : { command: answer, source: 'typed' };
}

async function askValid(ask: Ask, question: string, fallback: string, check: (value: string) => unknown): Promise<string> {
  for (let tries = 0; ; tries++) {
    const answer = (await ask(question)).trim();
    const value = answer === '' ? fallback : answer;
    try {
      check(value);
      return value;
    } catch (error) {
      if (tries >= 2) throw error;
    }
  }
}

// One reader for the whole session: its line iterator buffers what was typed ahead, so no answer is lost
// between two questions. The terminal echoes what is typed; the end of input is a refusal, not a crash.
async function terminalAsk(io: SubcommandIo): Promise<Ask & { close(): void }> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    io.stdout(question);
    const next = await lines.next();
    if (next.done === true) throw new LeapError('the terminal closed before an answer: nothing written', { exitCode: 1 });
    return next.value as string;
  };
  return Object.assign(ask, { close: () => rl.close() });
}

function writeNew(root: string, files: PlannedFile[]): string[] {
  const written: string[] = [];
  for (const file of files) {
    const full = join(root, file.path);
    mkdirSync(dirname(full), { recursive: true });
    try {
      // wx: a file that appeared since it was shown is kept, not replaced.
      writeFileSync(full, file.content, { flag: 'wx' });
      written.push(file.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      file.exists = true;
    }
  }
  return written;
}

// The written files git would commit: not the state folder's .gitignore (it ignores itself), nor what the user's ignore files exclude.
function tracked(root: string, written: string[]): string[] {
  if (written.length === 0) return [];
  const ran = runGitSync(['check-ignore', '-z', '--no-index', '--stdin'], { cwd: root, input: `${written.join('\0')}\0`, allowFailure: true });
  const ignored = new Set(ran.code === 0 ? ran.stdout.split('\0').filter((p) => p !== '') : []);
  return written.filter((p) => !ignored.has(p));
}

function report(decided: Decided, files: PlannedFile[], written: string[], wrote: boolean, issue: number, commit: string[] = []): InitReport {
  const next = [...(commit.length === 0 ? [] : [`git add -- ${commit.map(shellWord).join(' ')} && git commit -m 'Set up leap (leap init)'`]), `leap tdd run --issue ${issue}`];
  return {
    root: decided.choices.root,
    written: wrote,
    testCommand: decided.testCommand,
    candidates: decided.candidates,
    agents: decided.choices.agents,
    issue,
    files: files.map((f) => ({ path: f.path, what: f.what, status: written.includes(f.path) ? 'written' : f.exists ? 'kept' : 'not-written' })),
    next,
  };
}

function showPlan(choices: InitChoices, testCommand: Decided['testCommand'], files: PlannedFile[]): string {
  const lines = [`leap init in ${choices.root}`, ''];
  lines.push(testCommand === null ? 'Test command: none (leap.config.json leaves it out; leap tdd run will ask for --test-cmd)' : `Test command: ${testCommand.command} (${testCommand.source})`);
  lines.push('Agent CLIs:');
  const width = Math.max(...choices.agents.map((a) => a.name.length));
  for (const a of choices.agents) {
    const state = a.path === null ? 'not installed' : `installed at ${a.path}, ${a.loggedIn === true ? 'logged in' : a.loggedIn === null ? 'login unknown' : 'not logged in'} (${a.why})`;
    lines.push(`  ${a.name.padEnd(width)}  ${state}`);
  }
  lines.push('');
  for (const file of files) {
    if (file.exists) {
      lines.push(`--- ${file.path} (${file.what}): exists, kept as it is`);
    } else if (file.what === 'skill') {
      lines.push(`--- ${file.path} (${file.what}, ${Buffer.byteLength(file.content)} bytes)`);
    } else {
      lines.push(`--- ${file.path} (${file.what}, new):`, file.content.replace(/\n$/, ''), '');
    }
  }
  return `${lines.join('\n')}\n`;
}

function showEnd(files: PlannedFile[], written: string[], next: string[]): string {
  const kept = files.filter((f) => f.exists).length;
  const issue = files.find((f) => f.what === 'first issue');
  return [
    '',
    `Wrote ${written.length} file${written.length === 1 ? '' : 's'}${kept === 0 ? '' : `, kept ${kept} that existed`}.`,
    `Next: edit ${issue?.path ?? 'the first issue'} (its title, text and criteria), then:`,
    ...next.map((n) => `  ${n}`),
    '',
  ].join('\n');
}

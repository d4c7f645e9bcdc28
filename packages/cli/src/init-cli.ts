// `leap init` (CONTRACT section 14): asks or takes flags, shows every file before writing, never overwrites one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  UsageError,
  leapCommand,
  parseCli,
  resolveStateDir,
  showValue,
  statePaths,
  type SubcommandIo,
} from '@leap/core';
import { findAgentClis, proposeRoles } from './agent-clis.js';
import { type Ask, askValid, askYes, terminalAsk } from './init-ask.js';
import { type Decided, report, showEnd, showPlan } from './init-show.js';
import { git, needsIgnoreFile, treeAfter } from './init-tree.js';
import {
  DEFAULT_AGENTS_FILE,
  DEFAULT_IDLE_TIMEOUT,
  DEFAULT_ISSUE_TITLE,
  DEFAULT_TIMEOUT,
  checkDuration,
  checkTitle,
  issueNumbers,
  planFiles,
  repoRelative,
  type InitChoices,
  type PlannedFile,
} from './init-plan.js';
import { DEFAULT_SKILLS_DIR, findSkillsDir, readSkills } from './skills-source.js';
import { askTestCommand, chooseTestCommand, testCommandCandidates } from './test-command.js';
import { leapBin } from './version.js';

export const INIT_USAGE = `Usage: leap init [--yes] [--json] [--test-cmd CMD] [--tests GLOB]... [--timeout DURATION]
                 [--idle-timeout DURATION] [--agents FILE] [--issue-title TITLE] [--skills [DIR]] [--try]

Sets up this git repository for leap tdd: writes leap.config.json (the test command, detected as
leap tdd run detects it and checked to run here, test globs, time limits, the agents), an agents file
naming the agent CLIs found on PATH (claude, codex, gemini) and their roles, the state folder's .gitignore
and a first issue under the local tracker's folder (.tdd/issues/N.md), and with --skills the skills,
copied into .claude/skills/ or DIR. Every file is shown before it is written; a file that exists is kept,
never rewritten. On a terminal it asks; otherwise it writes only with --yes. It ends by printing the next
commands, each of which works as printed, and what is missing before a real run.

Options:
  --yes, -y                 write without asking (flags and what was detected decide)
  --test-cmd CMD            the test command (else the one detected; several possible needs this)
  --tests GLOB              files that hold tests, beside the built-in conventions (repeatable)
  --timeout DURATION        each leaf's time limit (default ${DEFAULT_TIMEOUT}); DURATION is 90, 90s, 15m, 1h
  --idle-timeout DURATION   the idle limit of a leaf (default ${DEFAULT_IDLE_TIMEOUT}; 0 is off)
  --agents FILE             the agents file, inside the repository (default ${DEFAULT_AGENTS_FILE})
  --issue-title TITLE       the first issue's title (default "${DEFAULT_ISSUE_TITLE}")
  --skills [DIR]            also copy the skills (leap, tdd) into DIR (default ${DEFAULT_SKILLS_DIR})
  --try                     also set up a trial issue run by scripted agents (no model, no network) in
                            leap-try/, to try the loop before any agent CLI is installed
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
  try: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `leap init`: on a terminal it asks (unless --yes); `ask` replaces the terminal in tests. */
export async function initMain(argv: string[], io: SubcommandIo, ask?: Ask): Promise<number> {
  const { skills, rest } = takeSkills(argv);
  const { values, positionals } = parseCli(rest, OPTIONS, INIT_USAGE);
  if (values.help === true) return (io.stdout(`${INIT_USAGE}\n`), 0);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${showValue(positionals[0])}\n${INIT_USAGE}`);
  const top = git(io.cwd, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0)
    throw new UsageError(`not in a git repository (${io.cwd}): run leap init at the top of one, or git init first`);
  const root = top.stdout.replace(/\n$/, '');
  const tty =
    ask !== undefined || values.yes === true || values.json === true || !io.isTTY || process.stdin.isTTY !== true
      ? undefined
      : await terminalAsk(io);
  const terminal = tty ?? ask;
  try {
    // An existing config is the user's: checked with the conductor's own reader (a bad one is exit 2), kept as it is.
    const { readProjectConfig } = await import('@leap/conductor');
    const existing = readProjectConfig(root)?.config ?? null;
    const { first: issue, free } = issueNumbers(statePaths(resolveStateDir(io.env, root)).issuesDir);
    const choices = await decide(root, io, values, skills, existing, terminal, free);
    const files = planFiles(choices.choices, issue);
    if (values.json !== true) io.stdout(showPlan(choices, files));
    const fresh = files.filter((f) => !f.exists);
    const unwritten = () => `${JSON.stringify(report(choices, files, [], issue, null))}\n`;
    if (fresh.length > 0 && values.yes !== true) {
      if (terminal === undefined) {
        if (values.json === true) io.stdout(unwritten());
        throw new UsageError(
          'not on a terminal and no --yes: nothing written (run again with --yes to write the files shown)',
        );
      }
      const question = `Write ${fresh.length} new file${fresh.length === 1 ? '' : 's'}? [Y/n] `;
      const answer = (await terminal(question)).trim().toLowerCase();
      if (!['', 'y', 'yes'].includes(answer))
        return (io.stdout(values.json === true ? unwritten() : 'Nothing written.\n'), 1);
    }
    const written = writeNew(root, fresh);
    const agentsUnnamed =
      existing !== null && existing.agents === undefined && written.includes(choices.choices.agentsFile)
        ? choices.choices.agentsFile
        : null;
    const head = git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    const result = report(choices, files, written, issue, {
      ...treeAfter(root, written),
      leap: leapCommand(root, io.env, leapBin()),
      agentsUnnamed,
      branch: head.code === 0 ? head.stdout.trim() : null,
    });
    io.stdout(values.json === true ? `${JSON.stringify(result)}\n` : showEnd(files, written, result));
    return 0;
  } finally {
    tty?.close();
  }
}

// `--skills` takes an optional folder, which parseArgs cannot say: it is read here, before the rest.
function takeSkills(argv: string[]): { skills: string | null; rest: string[] } {
  const valued = Object.entries(OPTIONS).flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : []));
  const rest: string[] = [];
  let skills: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--') return { skills, rest: [...rest, ...argv.slice(i)] };
    if (valued.includes(arg)) rest.push(arg, ...argv.slice(++i, i + 1));
    else if (arg === '--skills')
      skills = next !== undefined && !next.startsWith('-') ? (i++, next) : DEFAULT_SKILLS_DIR;
    else if (arg.startsWith('--skills=')) skills = arg.slice('--skills='.length);
    else rest.push(arg);
  }
  return { skills, rest };
}

type Values = ReturnType<typeof parseCli<typeof OPTIONS>>['values'];

async function decide(
  root: string,
  io: SubcommandIo,
  values: Values,
  skillsGiven: string | null,
  existing: Record<string, unknown> | null,
  ask: Ask | undefined,
  free: number,
): Promise<Decided> {
  const candidates = await testCommandCandidates(root, io.env);
  const noQuestion = ask === undefined && values.yes === true;
  let testCommand = chooseTestCommand(values['test-cmd'], existing, candidates, noQuestion);
  let timeout = checkDuration('--timeout', values.timeout ?? DEFAULT_TIMEOUT);
  let idle = checkDuration('--idle-timeout', values['idle-timeout'] ?? DEFAULT_IDLE_TIMEOUT);
  let issueTitle = checkTitle(values['issue-title'] ?? DEFAULT_ISSUE_TITLE);
  const agentsGiven = values.agents ?? (typeof existing?.agents === 'string' ? existing.agents : DEFAULT_AGENTS_FILE);
  const agentsFile = repoRelative(root, '--agents', agentsGiven);
  let skillsDir = skillsGiven === null ? null : repoRelative(root, '--skills', skillsGiven);
  const testFiles = [...(values.tests ?? [])];
  for (const glob of testFiles) if (glob.trim() === '') throw new UsageError('Expected --tests to be a glob, got ""');
  if (ask !== undefined) {
    if (values['test-cmd'] === undefined) testCommand = await askTestCommand(ask, testCommand, candidates);
    if (values.tests === undefined) {
      const globs = (await ask('Globs of files holding tests beside the conventions, space-separated [none]: ')).trim();
      if (globs !== '') testFiles.push(...globs.split(/\s+/));
    }
    if (values.timeout === undefined)
      timeout = await askValid(ask, "Each leaf's time limit", timeout, (v) => checkDuration('timeout', v));
    if (values['idle-timeout'] === undefined)
      idle = await askValid(ask, "A leaf's idle limit (0 is off)", idle, (v) => checkDuration('idle timeout', v));
    if (values['issue-title'] === undefined)
      issueTitle = await askValid(ask, "The first issue's title", issueTitle, checkTitle);
    if (skillsDir === null && (await askYes(ask, `Copy the skills into ${DEFAULT_SKILLS_DIR}/? [y/N] `)))
      skillsDir = DEFAULT_SKILLS_DIR;
  }
  const agents = await findAgentClis(root, io.env);
  const roles = proposeRoles(agents);
  const offer = 'No agent CLI is installed. Try the loop now with scripted agents (no model, no network)? [y/N] ';
  const tryIt =
    values.try === true || (ask !== undefined && roles.developer === undefined && (await askYes(ask, offer)));
  const schemaPath = 'node_modules/@leap/conductor/schemas/leap-config.schema.json';
  const choices: InitChoices = {
    root,
    env: io.env,
    testCommand: testCommand?.command ?? null,
    testFiles,
    timeout,
    idleTimeout: idle,
    agentsFile,
    agents,
    ...(typeof existing?.developer === 'string' ? {} : roles),
    issueTitle,
    trial: tryIt ? free : null,
    ignoreNodeModules: needsIgnoreFile(root),
    skills: skillsDir === null ? null : { dir: skillsDir, files: readSkills(findSkillsDir()) },
    schema: existsSync(join(root, schemaPath)) ? `./${schemaPath}` : null,
  };
  // What is written is what the conductor reads: checked with its own schema first.
  const { projectConfigSchema } = await import('@leap/conductor');
  const parsed = projectConfigSchema.safeParse(JSON.parse(planFiles(choices, 1)[0]!.content));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new UsageError(`the config leap init would write is not valid: ${issues.join('; ')}`);
  }
  return { choices, testCommand, candidates };
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

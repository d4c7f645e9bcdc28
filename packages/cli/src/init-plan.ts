// What `leap init` would write, as data: nothing here writes (init-cli.ts's writeNew does, only new files).
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import {
  DEFAULT_IDLE_TIMEOUT_S,
  DEFAULT_TIMEOUT_S,
  STATE_GITIGNORE,
  UsageError,
  orElse,
  parseDuration,
  resolveStateDir,
  showValue,
  statePaths,
} from '@leap/core';
import { type AgentCli, loginWords } from './agent-clis.js';
import { json, trialFiles } from './init-trial.js';

export interface PlannedFile {
  /** Relative to the repository root, with "/". */
  path: string;
  /** What it holds (for a file that exists, what would have been written). */
  content: string;
  exists: boolean;
  what: string;
}

export interface InitChoices {
  root: string;
  env: NodeJS.ProcessEnv;
  testCommand: string | null;
  testFiles: string[];
  timeout: string;
  idleTimeout: string;
  agentsFile: string;
  agents: AgentCli[];
  developer?: string;
  verifier?: string;
  issueTitle: string;
  /** The issue number of `leap init --try`'s trial with scripted agents, or null for none. */
  trial: number | null;
  ignoreNodeModules: boolean;
  /** Where to copy the skills (relative to the root), or null; with the skill files to copy. */
  skills: { dir: string; files: { path: string; content: string }[] } | null;
  /** The config's `$schema`, when the schema is installed where an editor finds it. */
  schema: string | null;
}

// The run's own defaults, as `leap init` writes them into leap.config.json (15m, 5m).
export const DEFAULT_TIMEOUT = `${DEFAULT_TIMEOUT_S / 60}m`;
export const DEFAULT_IDLE_TIMEOUT = `${DEFAULT_IDLE_TIMEOUT_S / 60}m`;
export const DEFAULT_AGENTS_FILE = 'leap.agents.json';
export const DEFAULT_ISSUE_TITLE = 'Describe the first change';

/** A path given on the command line, made relative to the root; absolute, empty or outside it is bad input. */
export function repoRelative(root: string, option: string, given: string): string {
  if (given === '' || given.includes('\0'))
    throw new UsageError(`Expected ${option} to be a path inside the repository, got ${showValue(given)}`);
  const full = isAbsolute(given) ? normalize(given) : join(root, given);
  const rel = relative(root, full);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new UsageError(`Expected ${option} to be a path inside the repository ${root}, got ${showValue(given)}`);
  return rel.split(sep).join('/');
}

export const checkDuration = (option: string, value: string): string => (parseDuration(option, value), value);

export function checkTitle(title: string): string {
  if (title.trim() === '' || /[\r\n\0]/.test(title))
    throw new UsageError(`Expected --issue-title to be one non-empty line, got ${showValue(title)}`);
  return title;
}

/** The lowest issue the tracker's folder holds (kept as it is), else 1 (the template); and the next free number. */
export function issueNumbers(issuesDir: string): { first: number; free: number } {
  const names = orElse(() => readdirSync(issuesDir), []);
  const existing = names.flatMap((n) => /^([1-9][0-9]*)\.md$/.exec(n)?.[1] ?? []).map(Number);
  return { first: existing.length === 0 ? 1 : Math.min(...existing), free: Math.max(1, ...existing) + 1 };
}

export function planFiles(choices: InitChoices, issue: number): PlannedFile[] {
  const { root } = choices;
  const files: PlannedFile[] = [];
  const add = (path: string, what: string, content: string) =>
    files.push({ path, what, content, exists: existsSync(join(root, path)) });
  const installed = choices.agents.filter((a) => a.path !== null);
  const config: Record<string, unknown> = {};
  if (choices.schema !== null) config.$schema = choices.schema;
  if (choices.testCommand !== null) config.testCommand = choices.testCommand;
  if (choices.testFiles.length > 0) config.testFiles = choices.testFiles;
  if (installed.length > 0) config.agents = choices.agentsFile;
  config.timeout = choices.timeout;
  config.idleTimeout = choices.idleTimeout;
  add('leap.config.json', 'project config', json(config));
  // A run starts only from a clean tree: the dependencies installed beside leap must not show in git status.
  if (choices.ignoreNodeModules) add('.gitignore', 'ignore file', 'node_modules/\n');
  if (installed.length > 0) {
    const agents = Object.fromEntries(installed.map((a) => [a.name, { plugin: a.name }]));
    const readiness = installed.map((a) => `${a.name}: installed, ${loginWords(a)}`).join('; ');
    // The roles ride in the agents file (the run reads them there): one place says who does what.
    const roles: Record<string, string[]> = {};
    if (choices.developer !== undefined) roles.developer = [choices.developer];
    if (choices.verifier !== undefined) roles.verifier = [choices.verifier];
    add(choices.agentsFile, 'agents file', json({ $comment: `found by leap init: ${readiness}`, agents, roles }));
  }
  const state = statePaths(resolveStateDir(choices.env, root));
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const stateRel = rel(state.dir);
  // The state folder's own .gitignore (what every command that writes there makes when it is missing).
  if (stateRel !== '' && !stateRel.startsWith('..'))
    add(`${stateRel}/.gitignore`, 'state folder ignore file', STATE_GITIGNORE);
  add(rel(state.issue(issue)), 'first issue', issueTemplate(choices.issueTitle));
  if (choices.trial !== null)
    for (const f of trialFiles(choices.trial, rel(state.issue(choices.trial)))) add(f.path, f.what, f.content);
  for (const f of choices.skills?.files ?? []) add(`${choices.skills!.dir}/${f.path}`, 'skill', f.content);
  return files;
}

const issueTemplate = (title: string) => `# ${title}

What should change, and why: everything a developer needs, as plain text. The conductor reads this file
(the local tracker's issue), plans one test-first step per criterion, and ticks each criterion when its
steps are done.

## Acceptance criteria
- [ ] The first behaviour, observable by a test.
- [ ] The next one.
`;

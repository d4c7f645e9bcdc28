// `leap demo` as a library: make the sample project and its scripted agents, then drive issue 1 with runTdd.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GitError, LeapError, UsageError, runGitSync, showValue } from '@leap/core';
import { scriptedAgentBin } from '@leap/agent-scripted';
import type { TddRunOptions } from '../index.js';
import { DEMO_PLAN, DEVELOPER_MOVES, VERIFIER_MOVES } from './demo-moves.js';
import { DEMO_ISSUE, DEMO_TEST_CMD, createSampleProject } from './sample-project.js';

/** The folder, inside the project and ignored by git, that holds the demo's agents and plan. */
export const AGENTS_DIR = '.leap-demo';

/** `dir`: a new or empty folder (default: a fresh temp one); `onProject`: once it is made, or found to resume. */
type DemoOptions = Pick<TddRunOptions, 'cwd' | 'env' | 'progress'> & {
  dir?: string;
  onProject: (dir: string, resume: boolean) => void;
};

/** Check `dir` is new, empty, or a demo project (nothing is touched otherwise); none means a new temp folder. */
function prepareDemoDir(dir: string | undefined, cwd: string): { dir: string; resume: boolean } {
  if (dir === undefined) return { dir: realpathSync(mkdtempSync(join(tmpdir(), 'leap-demo-'))), resume: false };
  if (dir === '') throw new UsageError('Expected --dir to name a folder, got ""');
  const path = resolve(cwd, dir);
  if (existsSync(path)) {
    if (!statSync(path).isDirectory())
      throw new UsageError(`--dir ${showValue(dir)}: expected a new or empty folder, found a file at ${path}`);
    if (existsSync(join(path, AGENTS_DIR, 'agents.json')) && existsSync(join(path, '.git')))
      return { dir: realpathSync(path), resume: true };
    const entries = readdirSync(path);
    if (entries.length > 0) {
      const shown = `${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}`;
      throw new UsageError(
        `--dir ${showValue(dir)}: expected a new or empty folder (or one an earlier leap demo made, to resume it), ` +
          `found ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} in ${path} (${shown})`,
      );
    }
  }
  mkdirSync(path, { recursive: true });
  return { dir: realpathSync(path), resume: false };
}

/** The agents file and the three scripts under `.leap-demo/`, a folder that ignores itself. */
export function writeDemoAgents(dir: string): void {
  const folder = join(dir, AGENTS_DIR);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, '.gitignore'), "# The demo's scripted agents and plan: never part of the project.\n*\n");
  const json = (name: string, value: unknown) =>
    writeFileSync(join(folder, name), `${JSON.stringify(value, null, 2)}\n`);
  // Two families, so the verifier is of another family than the developer, as the conductor requires by default.
  json('developer.json', { family: 'demo_developer', moves: DEVELOPER_MOVES });
  json('verifier.json', { family: 'demo_verifier', moves: VERIFIER_MOVES });
  json('planner.json', { family: 'demo_developer', moves: [{ answer: DEMO_PLAN }] });
  const roles = ['planner', 'developer', 'verifier'];
  json('agents.json', {
    agents: Object.fromEntries(roles.map((r) => [r, { plugin: 'scripted', script: `${r}.json` }])),
  });
}

// Before anything is made: the sample project is a git repository, and the conductor commits in it.
function checkGit(env: NodeJS.ProcessEnv): void {
  try {
    runGitSync(['--version'], { cwd: process.cwd(), env });
  } catch (cause) {
    // The spawn's own words (spawnSync git ENOENT), not the GitError's sentence around them.
    const why =
      cause instanceof GitError && cause.cause instanceof Error ? cause.cause.message : (cause as Error).message;
    throw new LeapError(`leap demo needs git on PATH, and could not run it: ${why}`, { exitCode: 1, cause });
  }
}

export async function runDemo(options: DemoOptions) {
  const env = options.env ?? process.env;
  if (!existsSync(scriptedAgentBin())) {
    throw new LeapError(
      `the scripted agent is not built (${scriptedAgentBin()} is missing): run \`npm run build\` first`,
      { exitCode: 1 },
    );
  }
  checkGit(env);
  const { dir, resume } = prepareDemoDir(options.dir, options.cwd);
  if (!resume) {
    createSampleProject(dir, env);
    writeDemoAgents(dir);
  }
  const agentsFile = join(dir, AGENTS_DIR, 'agents.json');
  options.onProject(dir, resume);
  const { runTdd } = await import('../run-tdd.js');
  const result = await runTdd({
    cwd: dir,
    issue: DEMO_ISSUE,
    testCmd: DEMO_TEST_CMD,
    agentsFile,
    planner: 'planner',
    developer: 'developer',
    verifier: 'verifier',
    // The caller's VERI_* and LEAP_* variables are another run's: the demo's run starts from none of them.
    env: {
      ...Object.fromEntries(Object.entries(env).filter(([key]) => !/^(VERI|LEAP)_/.test(key))),
      VERI_TIMEOUT: '120',
    },
    progress: options.progress,
  });
  return { dir, resumed: resume, result };
}

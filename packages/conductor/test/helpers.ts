// Fixtures of the conductor's tests: a small project with an issue, scripted agents, a clean environment.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, makeGitRepo, makeTempDir } from '@leap/test-utils';

/** The environment of a run: this process's, without any VERI_* or LEAP_* of the caller. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(VERI_|LEAP_|BASH_(DEFAULT|MAX)_TIMEOUT_MS)/.test(k)) env[k] = v;
  return { ...env, VERI_TIMEOUT: '60', ...extra };
}

// The suite in one process: `node --test` forks one per file, 15% of a scripted run's time (issue 43).
export const TEST_CMD = 'node test/run.mjs';
export const RUN_ALL =
  "import { readdirSync } from 'node:fs';\nfor (const f of readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.js')).sort()) await import(`./${f}`);\n";

const TEST_HEAD =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\n";

/** A step's red test file. */
export function redTest(n: number, body: string): { path: string; content: string } {
  return { path: `test/step${n}.test.js`, content: `${TEST_HEAD}${body}\n` };
}

/** The slugify project: a passing smoke test, and issue `issue` with these criteria in .tdd/issues/N.md, committed. */
export function makeProject(
  criteria: string[] = ['slugify lowercases the words and joins them with dashes'],
  issue = 1,
  title = 'Slugify titles',
): string {
  const body = `# ${title}\n\nStep titles become URL slugs.\n\n## Acceptance criteria\n\n${criteria.map((c) => `- [ ] ${c}`).join('\n')}\n`;
  return makeGitRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: TEST_CMD } }, null, 2)}\n`,
      'test/run.mjs': RUN_ALL,
      'src/slug.js': 'export function slugify(title) {\n  return title;\n}\n',
      'test/smoke.test.js': `${TEST_HEAD}test('slugify is a function', () => assert.equal(typeof slugify, 'function'));\n`,
      [`.tdd/issues/${issue}.md`]: body,
    },
    prefix: 'leap-conductor-',
  });
}

/** The three moves of a step that goes through: red test, implementation, refactor. */
export function stepMoves(n: number, testBody: string, impl: string, refactored: string): object[] {
  return [
    { edits: [redTest(n, testBody)], answer: `Wrote the failing test of step ${n}.` },
    { edits: [{ path: 'src/slug.js', content: impl }], answer: `Implemented step ${n}.` },
    { edits: [{ path: 'src/slug.js', content: refactored }], answer: `Refactored step ${n}.` },
  ];
}

export const IMPL1 =
  "export function slugify(title) {\n  return title.toLowerCase().split(/\\s+/).filter(Boolean).join('-');\n}\n";
export const REFACTORED1 =
  "const words = (text) => text.split(/\\s+/).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n";
export const TEST1 =
  "test('lowercases and joins with dashes', () => assert.equal(slugify('Hello  Big World'), 'hello-big-world'));";

export const pass = (reason = 'Looks right.') => ({ answer: { verdict: 'PASS', reason } });
export const reject = (reason: string) => ({ answer: { verdict: 'REJECT', reason } });

/** Scripted agents in a folder outside the repository: an agents file naming `dev`, `ver` (and `plan` when given). */
export function scriptedAgents(
  developer: object[],
  verifier: object[],
  planner?: object[],
): { file: string; dir: string } {
  const dir = makeTempDir('leap-agents-');
  const entries: Record<string, object> = {};
  const add = (name: string, moves: object[], family: string) => {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ family, moves }, null, 1));
    entries[name] = { plugin: 'scripted', script: `${name}.json` };
  };
  add('dev', developer, 'replayed');
  add('ver', verifier, 'checker');
  if (planner !== undefined) add('plan', planner, 'replayed');
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: entries }, null, 1));
  return { file, dir };
}

/** The prompt a scripted agent's move `index` received. */
export function receivedPrompt(agentsDir: string, name: string, index: number): string {
  return readFileSync(join(agentsDir, `${name}.json.state`, `move-${index}.prompt`), 'utf8');
}

/** The subjects of the branch's commits since `base`, oldest first. */
export function subjects(repo: string, base = 'main'): string[] {
  return git(repo, 'log', '--reverse', '--format=%s', `${base}..HEAD`)
    .split('\n')
    .filter((l) => l !== '');
}

/** Write a file of the repository. */
export function writeRepoFile(repo: string, path: string, content: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
}

/** The event log's records. */
export function readEvents(repo: string): Record<string, unknown>[] {
  return readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** A step's edits for the deterministic command developer (fixtures/dev-agent.mjs). */
export interface StepEdits {
  [phase: string]: {
    path: string;
    content: string;
    extra?: { path: string; content: string }[];
    delete?: string[];
    git?: string[][];
    say?: string;
  };
}

/** Command agents: `dev` (fixtures/dev-agent.mjs over `steps`) and `ver` (always PASS); their launches logged as JSON lines. */
export function commandAgents(
  steps: Record<string, StepEdits>,
  options: { sleepMs?: number } = {},
): { file: string; dir: string; devLog: string; verLog: string } {
  const dir = makeTempDir('leap-cmd-agents-');
  const moves = join(dir, 'moves.json');
  writeFileSync(moves, JSON.stringify({ steps, sleep_ms: options.sleepMs ?? 0 }));
  const devLog = join(dir, 'dev.log');
  const verLog = join(dir, 'ver.log');
  const file = join(dir, 'agents.json');
  // Their logs lie in this folder, outside the repository: each entry makes it writable inside its sandbox (`paths`),
  // and passes the variables that tell them how long to sleep (`pass_env`), as an entry names its CLI's own.
  const paths = { write: [dir] };
  const pass_env = ['DEV_SLEEP_*', 'VER_SLEEP_MS'];
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        dev: {
          plugin: 'command',
          family: 'replayed',
          command: [process.execPath, join(FIXTURES, 'dev-agent.mjs'), moves, devLog],
          paths,
          pass_env,
        },
        ver: {
          plugin: 'command',
          family: 'checker',
          command: [process.execPath, join(FIXTURES, 'pass-verifier.mjs'), verLog],
          paths,
          pass_env,
        },
      },
    }),
  );
  return { file, dir, devLog, verLog };
}

/** The JSON lines of a command agent's log. */
export function readLog(file: string): { env: Record<string, string>; prompt: string }[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { env: Record<string, string>; prompt: string });
  } catch {
    return [];
  }
}

/** The fixture folder (stand-in CLIs). */
export const fixture = (name: string): string => join(FIXTURES, name);

/** Edits of independent steps: step K's test imports src/stepK.js (missing until its green), its refactor rewrites it. */
export function slugSteps(titles: string[]): Record<string, StepEdits> {
  const steps: Record<string, StepEdits> = {};
  titles.forEach((title, i) => {
    const n = i + 1;
    steps[title] = {
      red: {
        path: `test/step${n}.test.js`,
        content: `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { value } from '../src/step${n}.js';\n\ntest(${JSON.stringify(`step ${n}: ${title}`)}, () => assert.equal(value, ${n}));\n`,
      },
      green: { path: `src/step${n}.js`, content: `export const value = ${n};\n` },
      refactor: { path: `src/step${n}.js`, content: `// Step ${n}: ${title}\nexport const value = ${n};\n` },
    };
  });
  return steps;
}

/** A plan file for `titles`, step K linked to criterion K (or all to criterion 1). */
export function planFile(titles: string[], criterionOf: (i: number) => number = (i) => i + 1): string {
  const file = join(makeTempDir('leap-plan-'), 'plan.txt');
  writeFileSync(file, `Plan\n${titles.map((t, i) => `${t} (criterion ${criterionOf(i)})`).join('\n')}\n`);
  return file;
}

/** Every file of the repository (ignored ones too, .git's refs and HEAD), with its bytes' hash: what "nothing touched" compares. */
export function repoFingerprint(repo: string): string {
  const { createHash } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const { readdirSync, lstatSync } = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  const lines: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (path === '.git') continue;
      const full = join(dir, name);
      if (lstatSync(full).isDirectory()) walk(full, path);
      else lines.push(`${path} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(repo, '');
  lines.push(`HEAD ${git(repo, 'rev-parse', 'HEAD').trim()} ${git(repo, 'symbolic-ref', '-q', 'HEAD').trim()}`);
  lines.push(git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'));
  lines.push(git(repo, 'status', '--porcelain', '--ignored'));
  return lines.join('\n');
}

/**
 * runTdd's options for a one-step run of `title` (the slug step most tests drive): the test command, a plan file,
 * agents `dev` and `ver` from `agentsFile`, a clean environment; `more` on top.
 */
export function oneStepRun(
  repo: string,
  agentsFile: string,
  more: Record<string, unknown> = {},
  title = 'Lowercase and join with dashes',
) {
  return {
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile([title]),
    developer: 'dev',
    verifier: 'ver',
    agentsFile,
    env: cleanEnv(),
    ...more,
  };
}

// Fixtures of the conductor's tests: a small project with an issue, scripted agents, a clean environment.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, makeGitRepo, makeTempDir } from '@leap/test-utils';

/** The environment of a run: this process's, without any VERI_* or LEAP_* of the caller. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VERI_|LEAP_|BASH_(DEFAULT|MAX)_TIMEOUT_MS)/.test(k)) env[k] = v;
  return { ...env, VERI_TIMEOUT: '60', ...extra };
}

export const TEST_CMD = 'node --test test/';

const TEST_HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\n";

/** A step's red test file. */
export function redTest(n: number, body: string): { path: string; content: string } {
  return { path: `test/step${n}.test.js`, content: `${TEST_HEAD}${body}\n` };
}

/** The slugify project: a passing smoke test, and issue `issue` with these criteria in .tdd/issues/N.md, committed. */
export function makeProject(criteria: string[] = ['slugify lowercases the words and joins them with dashes'], issue = 1, title = 'Slugify titles'): string {
  const body = `# ${title}\n\nStep titles become URL slugs.\n\n## Acceptance criteria\n\n${criteria.map((c) => `- [ ] ${c}`).join('\n')}\n`;
  return makeGitRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
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

export const IMPL1 = "export function slugify(title) {\n  return title.toLowerCase().split(/\\s+/).filter(Boolean).join('-');\n}\n";
export const REFACTORED1 = "const words = (text) => text.split(/\\s+/).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n";
export const TEST1 = "test('lowercases and joins with dashes', () => assert.equal(slugify('Hello  Big World'), 'hello-big-world'));";

export const pass = (reason = 'Looks right.') => ({ answer: { verdict: 'PASS', reason } });
export const reject = (reason: string) => ({ answer: { verdict: 'REJECT', reason } });

/** Scripted agents in a folder outside the repository: an agents file naming `dev`, `ver` (and `plan` when given). */
export function scriptedAgents(developer: object[], verifier: object[], planner?: object[]): { file: string; dir: string } {
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
  return git(repo, 'log', '--reverse', '--format=%s', `${base}..HEAD`).split('\n').filter((l) => l !== '');
}

/** Write a file of the repository. */
export function writeRepoFile(repo: string, path: string, content: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
}

/** The event log's records. */
export function readEvents(repo: string): Record<string, unknown>[] {
  return readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

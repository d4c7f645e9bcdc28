// The demo's sample project: slugify tested with node's own runner, and issue 1; nothing to install, no network.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runGitSync } from '@leap/core';

/** node's runner finds `test/*.test.js` itself; the project's reporter prints one line a run. */
export const DEMO_TEST_CMD = 'node --test --test-reporter=./tools/summary-reporter.mjs';

// One line a suite run keeps the demo readable; a backslash at a line's end continues it.
const SUMMARY_REPORTER = `// A reporter for node's test runner: one line a run, the counts and the names of the \
failed tests.
export default async function* summary(source) {
  let passed = 0;
  const failed = [];
  for await (const event of source) {
    if (event.data?.details?.type === 'suite') continue;
    if (event.type === 'test:pass') passed++;
    if (event.type === 'test:fail') failed.push(event.data.name);
  }
  yield \`tests: \${passed} passed, \${failed.length} failed\
\${failed.length > 0 ? \` (\${failed.join('; ')})\` : ''}\\n\`;
}
`;

export const DEMO_ISSUE = 1;

const TEST_HEADER =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n" +
  "import { slugify } from '../src/slug.js';\n\n";

export function testFile(body: string): string {
  return `${TEST_HEADER}${body}\n`;
}

/** Issue 1 as `.tdd/issues/1.md`: a title, why, and three criteria (with an apostrophe, `$`, backticks and accents). */
export const DEMO_ISSUE_TEXT = `# Slugify step titles

A run's pull request and branch names are made from step titles, so titles must become short,
URL-safe slugs. Titles are written by people: expect apostrophes, \`$\`, backticks and accents.

## Acceptance criteria

- [ ] slugify lowercases the words and joins them with single dashes: "Hello  Big World" becomes "hello-big-world"
- [ ] slugify drops every character that is neither a letter nor a digit, so "It's $(x) \`y\`" becomes "its-x-y", \
and keeps accented letters ("Crème brûlée" becomes "crème-brûlée")
- [ ] slugify cuts a slug longer than 20 characters at its last dash within 20: \
"one two three four five six" becomes "one-two-three-four"
`;

const PACKAGE_JSON = { name: 'slug-demo', private: true, type: 'module', scripts: { test: DEMO_TEST_CMD } };

const SAMPLE_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify(PACKAGE_JSON, null, 2)}\n`,
  'README.md':
    '# slug-demo\n\nA sample project made by `leap demo`: `slugify(title)` turns step titles into URL slugs.\n' +
    "Run its tests with `npm test` (node's own test runner).\n",
  'tools/summary-reporter.mjs': SUMMARY_REPORTER,
  'src/slug.js': '// Step titles to URL slugs.\nexport function slugify(title) {\n  return title;\n}\n',
  'test/smoke.test.js': testFile("test('slugify is a function', () => assert.equal(typeof slugify, 'function'));"),
  '.tdd/issues/1.md': DEMO_ISSUE_TEXT,
};

/** Make the sample project in `dir` (created, or empty): a git repository on `main` with one commit. */
export function createSampleProject(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  mkdirSync(dir, { recursive: true });
  // A failure is a GitError (exit 1: the demo could not make its project), naming git's subcommand and its words.
  const git = (...args: string[]) => runGitSync(args, { cwd: dir, env, exitCode: 1 });
  git('init', '-q', '-b', 'main');
  // The project's own identity, so the demo commits on a machine with no git configuration at all.
  git('config', 'user.name', 'Leap Demo');
  git('config', 'user.email', 'demo@leap.invalid');
  git('config', 'commit.gpgsign', 'false');
  for (const [path, content] of Object.entries(SAMPLE_FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'slug-demo: slugify and issue 1');
}

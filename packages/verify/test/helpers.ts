// Test helpers of @leap/verify: a repository with an issue, a ledger and a test command; agents files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, makeGitRepo, makeTempDir, repoRoot } from '@leap/test-utils';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const verifyBin = join(repoRoot, 'packages', 'verify', 'dist', 'bin', 'leap-verify.cjs');
export const verdictBin = join(repoRoot, 'packages', 'verify', 'dist', 'bin', 'leap-verdict.cjs');
export const juryBin = join(repoRoot, 'packages', 'verify', 'dist', 'bin', 'leap-jury.cjs');

/** The run's test command: every test/*.test.js must exit 0. */
export const TEST_CMD = 'shopt -s nullglob; for f in test/*.test.js; do node "$f" || exit 1; done';

const ISSUE = `# Greeting

The CLI greets people.

## Acceptance criteria

- [ ] greet() returns "hello"
  even on Sundays
- [ ] greet(name) returns "hello NAME"
`;

/** A ledger whose first step links criterion 1 and whose second is titled `title`. */
function ledgerText(title = 'greet takes a name'): string {
  return `# Issue 3: Greeting\n\n## Steps\n\n- [ ] greet returns hello <!-- criterion: 1 -->\n- [ ] ${title} <!-- criterion: 2 -->\n`;
}

/**
 * A repository with issue 3, its ledger (in .tdd/, ignored by git) and a greet module; then a red
 * commit adding test/greet.test.js that fails until greet returns "hello".
 */
export function makeRedRepo(options: { title?: string; redMessage?: string } = {}): string {
  const repo = makeGitRepo({
    files: {
      '.gitignore': '.tdd/\nnode_modules/\n',
      'src/greet.js': 'export const greet = () => "hi";\n',
      'test/util.test.js': 'process.exit(0);\n',
    },
  });
  mkdirSync(join(repo, '.tdd', 'issues'), { recursive: true });
  writeFileSync(join(repo, '.tdd', 'issues', '3.md'), ISSUE);
  writeFileSync(join(repo, '.tdd', 'issue-3.md'), ledgerText(options.title));
  writeFileSync(
    join(repo, 'test', 'greet.test.js'),
    'import { greet } from "../src/greet.js";\nif (greet() !== "hello") process.exit(1);\n',
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', options.redMessage ?? 'red: greet returns hello');
  return repo;
}

/** Make the red repo green: greet returns "hello", committed. */
export function makeGreen(repo: string, message = 'green: greet returns hello'): void {
  writeFileSync(join(repo, 'src', 'greet.js'), 'export const greet = () => "hello";\n');
  git(repo, 'commit', '-q', '-am', message);
}

/** The environment of a verifier launch in `repo`. */
export function verifyEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'VERI_STATE_DIR',
    'VERI_STEP',
    'VERI_AGENTS',
    'VERI_VERIFY_AGENT',
    'VERI_TIMEOUT',
    'VERI_SKILL_COMMIT',
  ])
    delete env[name];
  return { ...env, VERI_ISSUE: '3', VERI_TEST_CMD: TEST_CMD, VERI_KILL_AFTER: '0.2', ...extra };
}

/** Write a scripted agent's script; returns its path. */
export function writeScript(moves: unknown[], family = 'scripted', dir = makeTempDir()): string {
  const file = join(dir, `script-${family}.json`);
  writeFileSync(file, JSON.stringify({ family, moves }));
  return file;
}

/** Write an agents file; returns its path. */
export function writeAgents(agents: Record<string, unknown>, dir = makeTempDir()): string {
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents }));
  return file;
}

/** A command agent (bash) that reads its prompt and prints `answer` after `sleep` seconds. */
export function bashAgent(family: string, answer: string, sleep = 0): Record<string, unknown> {
  return {
    plugin: 'command',
    family,
    command: ['bash', '-c', `cat > /dev/null; sleep ${sleep}; printf '%s' "$0"`, answer],
  };
}

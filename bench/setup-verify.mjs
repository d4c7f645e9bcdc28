// Bench setup for `leap-verify prompt`: a repository with an issue, a ledger, a red commit and
// its recorded red verdict, so the green prompt needs no git call (the hot path).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TITLE = 'greet returns hello';

export function setupVerifyPrompt(tmp) {
  const repo = join(tmp, 'verify-repo');
  const write = (file, text) => {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
  };
  const git = (...a) => execFileSync('git', a, { cwd: repo, stdio: 'ignore' });
  mkdirSync(repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@leap.invalid');
  write('.gitignore', '.tdd/*\n!.tdd/issue-*.md\n');
  write('src/greet.js', 'export const greet = () => "hello";\n');
  write('.tdd/issues/3.md', '# Greet\n\n## Acceptance criteria\n\n- [ ] greet returns hello\n');
  write('.tdd/issue-3.md', `# Greet\n\n## Steps\n\n- [ ] ${TITLE} <!-- criterion: 1 -->\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  write('test/greet.test.js', 'import { greet } from "../src/greet.js";\nif (greet() !== "hello") process.exit(1);\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'red');
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const verdict = {
    ts: new Date().toISOString(),
    event: 'verdict',
    issue: 3,
    step: TITLE,
    skill_commit: null,
    phase: 'red',
    verdict: 'PASS',
    reason: 'bench',
    code: 0,
    commit: head,
    tests: ['test/greet.test.js'],
  };
  write('.tdd/events.jsonl', `${JSON.stringify(verdict)}\n`);
  return { cwd: repo, env: { VERI_ISSUE: '3' }, args: ['prompt', '--step', TITLE, 'green'] };
}

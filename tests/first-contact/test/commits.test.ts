// The commit rule of issue 41, as tools/check-commits.mjs enforces it: on a repository of its own (good and bad
// messages, each refused for its own reason), and on this repository's history since the rule began.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeGitRepo, repoRoot, suite } from '@leap/test-utils';

const commits = suite('commit messages');
commits.after.each(cleanupTempDirs);

const check = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, 'tools/check-commits.mjs'), ...args], { cwd, encoding: 'utf8' });

function commit(repo: string, message: string): void {
  writeFileSync(join(repo, 'f'), message);
  git(repo, 'add', 'f');
  git(repo, 'commit', '-q', '-m', message);
}

commits('each broken rule is refused with its reason; a good message and a quoted, non-ASCII one pass', () => {
  const repo = makeGitRepo({ files: { f: '' } });
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  commit(repo, 'verify: add a canary to each test file\n\nA green that excluded its test passed.');
  commit(repo, "cli: name the file's `$HOME` — déjà vu\n\nQuotes and accents are data.");
  let r = check(repo, '--base', base);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /2 commit\(s\).*0 refused/);
  commit(repo, `verify: ${'x'.repeat(70)}\n\nwhy`);
  commit(repo, 'Added the canary\n\nwhy');
  commit(repo, 'verify: added the canary\n\nwhy');
  commit(repo, 'verify: add the canary');
  r = check(repo, '--base', base);
  assert.is(r.status, 1, r.stdout);
  assert.match(r.stdout, /6 commit\(s\).*4 refused/);
  assert.match(r.stderr, /subject is 78 characters \(at most 72\)/);
  assert.match(r.stderr, /Added the canary\n {2}- subject is not `area: what changed`/);
  assert.match(r.stderr, /verb "added" is not in the imperative/);
  assert.match(r.stderr, /verify: add the canary\n {2}- no body/);
});

commits('a base outside the history is bad input, not a pass', () => {
  const repo = makeGitRepo({ files: { f: '' } });
  const r = check(repo, '--base', '0123456789abcdef0123456789abcdef01234567');
  assert.is(r.status, 2);
  assert.match(r.stderr, /not in this clone's history/);
  assert.is(check(repo, '--bogus').status, 2);
});

commits("this repository's commits since the rule began follow it", () => {
  const r = check(repoRoot);
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
});

commits.run();

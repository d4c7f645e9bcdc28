// The state folder keeps git clean (CONTRACT section 2): a real leap-ledger tick and init leave
// `git status --porcelain` empty, the event log and the state folder's own .gitignore ignored.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo } from '@leap/test-utils';
import { STATE_GITIGNORE } from '@leap/core';
import { ledger, makeLedgerRepo, stage } from './helpers.js';

const status = (repo: string) => git(repo, 'status', '--porcelain', '--untracked-files=all');

const clean = suite('leap-ledger leaves git status clean');
clean.after.each(cleanupTempDirs);

clean('tick in a repository whose .tdd/ a person made: one commit, then git status is empty', async () => {
  const title = hostileTitles(2)[1]!;
  const { dir } = makeLedgerRepo([
    ['done', 'Parse the config'],
    ['todo', title],
  ]);
  assert.not.ok(existsSync(join(dir, '.tdd', '.gitignore')), 'the fixture starts without the .gitignore');
  stage(dir, 'src/config.js', 'export const ok = true;\n');
  const tick = await ledger(dir, ['tick', '--issue', '7', '--step', title]);
  assert.is(tick.code, 0, tick.stderr);
  assert.ok(existsSync(join(dir, '.tdd', 'events.jsonl')), 'the tick event was appended');
  assert.is(readFileSync(join(dir, '.tdd', '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(dir), '');
  assert.is(
    git(dir, 'show', '--format=', '--name-only', 'HEAD'),
    '.tdd/issue-7.md\nsrc/config.js\n',
    "the tick commits the work and the ledger, nothing of the state folder's runtime files",
  );
});

clean('init makes the state folder: only the new ledger shows, and it commits cleanly', async () => {
  const dir = makeGitRepo();
  const init = await ledger(dir, ['init', '--issue', '3'], {
    input: 'Issue 3: it\'s "$(x)"\nfirst step\nsecond step\n',
  });
  assert.is(init.code, 0, init.stderr);
  assert.is(status(dir), '?? .tdd/issue-3.md\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'plan: issue 3');
  assert.is(status(dir), '');
});

clean.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo } from '@leap/test-utils';
import { parseStatusV2 } from '../src/index.js';

test.after.each(cleanupTempDirs);

test("parseStatusV2: HEAD, its branch, and each entry with its sides, a rename's origin skipped", () => {
  const oid = 'a'.repeat(40);
  const h = 'b'.repeat(40);
  const out = [
    `# branch.oid ${oid}`,
    '# branch.head leap/s/a',
    '# branch.upstream origin/x',
    `1 .M N... 100644 100644 100644 ${h} ${h} src/a b.txt`,
    `1 A. N... 000000 100644 100644 ${h} ${h} staged only.txt`,
    `2 RM N... 100644 100644 100644 ${h} ${h} R100 new name.txt`,
    '? old name.txt',
    `u UU N... 100644 100644 100644 100644 ${h} ${h} ${h} both.txt`,
    '? $(x) é.txt',
    '! ignored.txt',
    '',
  ].join('\0');
  assert.equal(parseStatusV2(out), {
    oid,
    branch: 'leap/s/a',
    entries: [
      { x: '.', y: 'M', path: 'src/a b.txt' },
      { x: 'A', y: '.', path: 'staged only.txt' },
      { x: 'R', y: 'M', path: 'new name.txt' },
      { x: 'U', y: 'U', path: 'both.txt' },
      { x: '?', y: '?', path: '$(x) é.txt' },
    ],
  });
  assert.equal(parseStatusV2('# branch.oid (initial)\0# branch.head (detached)\0'), {
    oid: null,
    branch: null,
    entries: [],
  });
  assert.equal(parseStatusV2(''), { oid: null, branch: null, entries: [] });
});

test('parseStatusV2 reads what a real git status prints', () => {
  const repo = makeGitRepo({ files: { 'kept.txt': 'k\n', "it's $(x).txt": 'a\n' } });
  writeFileSync(join(repo, "it's $(x).txt"), 'changed\n');
  writeFileSync(join(repo, 'new é.txt'), 'n\n');
  writeFileSync(join(repo, 'staged.txt'), 's\n');
  git(repo, 'add', 'staged.txt');
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  const branch = git(repo, 'symbolic-ref', '--short', 'HEAD').trim();
  const status = parseStatusV2(git(repo, 'status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'));
  assert.is(status.oid, head);
  assert.is(status.branch, branch);
  assert.equal(
    status.entries.sort((a, b) => a.path.localeCompare(b.path)),
    [
      { x: '.', y: 'M', path: "it's $(x).txt" },
      { x: '?', y: '?', path: 'new é.txt' },
      { x: 'A', y: '.', path: 'staged.txt' },
    ].sort((a, b) => a.path.localeCompare(b.path)),
  );
});

test.run();

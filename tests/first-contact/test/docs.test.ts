// Every file a README, ARCHITECTURE.md or doc of the repository names is in the tree: a reader who
// follows a path finds it. A name is a path when it is written in backticks or as a link target and looks
// like one (a folder ending in `/`, or a file with an extension of the kinds the tree holds).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { git, repoRoot } from '@leap/test-utils';

const docs = suite('docs name only files that exist');

const PATH_LIKE =
  /^(?:\.{1,2}\/)*[a-z0-9_@][\w.@-]*(?:\/[\w.@-]+)*(?:\/|\.(?:ts|mts|mjs|cjs|js|json|jsonl|md|sh|ya?ml|toml))$/i;

// Files the toolchain writes at run time or the build makes (anything under a `dist/` too), which the docs
// describe and no tree holds.
const MADE_AT_RUN_TIME = new Set([
  'events.jsonl',
  'run.json',
  'record.json',
  'result.json',
  'champion.json',
  'checkpoint.md',
  'spine/aggregate.json',
  'refs/leap/attempts/',
  'test-output/',
]);

// Files of a user's repository that the toolchain or the project's own tools read or make, which docs name.
const USERS_FILES = new Set([
  'leap.config.json',
  'leap.agents.json',
  'vitest.config.ts',
  'vitest.config.js',
  'vitest.config.mts',
  'pyproject.toml',
  'target/',
  'coverage/',
]);

// Paths of a user's repository that a doc gives as examples, by doc.
const EXAMPLES: Record<string, string[]> = {
  'packages/slice/docs/slice-file.md': ['src/a.js'],
  'packages/verify/README.md': ['src/test/'],
};

// The names of documents, which are capitals by convention; any other all-capital segment is a placeholder
// (`NAME.cjs`, `BALL/result.json`, `issue-N.md`).
const DOC_NAMES = new Set([
  'README',
  'ARCHITECTURE',
  'RESULTS',
  'SKILL',
  'CONTRACT',
  'MODEL-STUB',
  'CHANGELOG',
  'STYLE',
  'LICENSE',
]);
const hasPlaceholder = (path: string) =>
  path.split(/[/.]/).some((part) => /^[A-Z][A-Z0-9_-]*$/.test(part) && !DOC_NAMES.has(part)) ||
  /(^|-)[A-Z](?=$|[-.])/.test(path);

docs('every path a doc names is a file or folder of the tree', () => {
  const files = git(repoRoot, 'ls-files', '-z')
    .split('\0')
    .filter((f) => f !== '');
  const tracked = new Set(files);
  const folders = new Set<string>();
  for (const file of files) for (let d = dirname(file); d !== '.'; d = dirname(d)) folders.add(`${d}/`);
  const known = (path: string) => (path.endsWith('/') ? folders.has(path) : tracked.has(path));
  const missing: string[] = [];
  let checked = 0;
  for (const doc of files.filter(
    (f) =>
      f.endsWith('.md') && !f.includes('/fixtures/') && !/(^|\/)CHANGELOG\.md$/.test(f) && !f.startsWith('.changeset/'),
  )) {
    const text = readFileSync(join(repoRoot, doc), 'utf8');
    const names = [...text.matchAll(/`([^`\n]+)`/g), ...text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map(
      (m) => m[1] as string,
    );
    for (const name of names) {
      // dist/ and schemas/*.schema.json are the build's (issue 41), not committed.
      if (
        !PATH_LIKE.test(name) ||
        /^(?:\.tdd|\.leap)\/|(?:^|\/)dist\/|(?:^|\/)schemas\/[^/]+\.schema\.json$/.test(name) ||
        MADE_AT_RUN_TIME.has(name) ||
        hasPlaceholder(name)
      )
        continue;
      if (EXAMPLES[doc]?.includes(name) === true || USERS_FILES.has(name)) continue;
      checked++;
      // The steering repository's shared/ (the contract, the recorded agent runs) lies beside the clone where
      // CI and sessions lay it: a name in it must exist there; without it, as in a temp clone, it cannot be checked.
      const shared = join(repoRoot, '..', 'shared');
      const inShared = /^(?:\.\.\/)+shared\/(.*)$/.exec(name)?.[1] ?? (/^agent-cli-runs\//.test(name) ? name : null);
      if (inShared !== null) {
        if (!existsSync(shared) || existsSync(join(shared, inShared)) || existsSync(join(shared, 'spec', inShared)))
          continue;
        missing.push(`${doc}: \`${name}\` (not in ${shared})`);
        continue;
      }
      // A package's own path (`@leap/conductor/schemas/x.json`) is its folder's.
      if (name.startsWith('@leap/')) {
        const inPackage = name.slice('@leap/'.length);
        if (files.some((f) => `/${f}`.endsWith(`/${inPackage}`))) continue;
      }
      const fromDoc = normalize(join(dirname(doc), name)) + (name.endsWith('/') ? '/' : '');
      if (known(fromDoc) || known(normalize(name) + (name.endsWith('/') ? '/' : ''))) continue;
      // A path given from its package's or source folder's point of view (`src/engine/git.ts`, `engine/git.ts`).
      const tail = `/${name.replace(/^\.\//, '')}`;
      if ((name.endsWith('/') ? [...folders] : files).some((f) => `/${f}`.endsWith(tail))) continue;
      missing.push(`${doc}: \`${name}\``);
    }
  }
  assert.ok(checked > 200, `only ${checked} paths were checked: the pattern no longer finds the docs' paths`);
  assert.equal(missing, [], `docs name files that are not in the tree:\n${missing.join('\n')}`);
});

docs('a doc that names a file that is gone is caught', () => {
  // The rule itself, on the slip this test was written for: the view's README named `demo/run.mjs`.
  assert.ok(PATH_LIKE.test('demo/run.mjs'));
  assert.not.ok(hasPlaceholder('demo/run.mjs'));
  assert.ok(hasPlaceholder('dist/bin/NAME.cjs'));
  assert.ok(hasPlaceholder('issue-N.md'));
  assert.not.ok(hasPlaceholder('ARCHITECTURE.md'));
  const files = git(repoRoot, 'ls-files', '-z').split('\0');
  assert.not.ok(files.some((f) => `/${f}`.endsWith('/demo/run.mjs')));
});

docs.run();

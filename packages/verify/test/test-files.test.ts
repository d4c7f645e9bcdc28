import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo } from '@leap/test-utils';
import {
  findStepTests,
  globToRegExp,
  hasInlineTests,
  isTestFile,
  matchGlobs,
  testFilePredicate,
} from '../src/index.js';
import { TEST_FILE_CONVENTIONS, renderTestFileConventions } from '../src/test-files.js';

// One example of what each convention glob is there for (every glob must have one).
const EXAMPLES: Record<string, string> = {
  '**/test/**/*': 'pkg/test/a.js',
  '**/tests/**/*': 'tests/integration.rs',
  '**/__tests__/**/*': 'src/__tests__/a.tsx',
  '**/*.test.*': 'src/a.test.ts',
  '**/*.spec.*': 'b.spec.mjs',
  '**/*_test.*': 'go/x_test.go',
  '**/*-test.{js,mjs,cjs,jsx,ts,mts,cts,tsx}': 'lib/slug-test.mjs',
  '**/test-*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}': 'test-slug.js',
  '**/test.{js,mjs,cjs,jsx,ts,mts,cts,tsx}': 'src/test.js',
  '**/test_*.py': 'test_slug.py',
  '**/*_test.py': 'pkg/slug_test.py',
  '**/tests.py': 'app/tests.py',
  '**/conftest.py': 'conftest.py',
  '**/*_spec.*': 'spec/slug_spec.rb',
  '**/spec/**/*.rb': 'spec/support/helpers.rb',
  '**/test_*.rb': 'lib/test_slug.rb',
  '**/Test*.{java,kt,kts,groovy,scala}': 'src/main/java/TestSlug.java',
  '**/*Test.{java,kt,kts,groovy,scala}': 'SlugTest.java',
  '**/*Tests.{java,kt,kts,groovy,scala}': 'app/SlugTests.kt',
  '**/*TestCase.{java,kt,kts,groovy,scala}': 'core/SlugTestCase.groovy',
  '**/*Spec.{java,kt,kts,groovy,scala}': 'core/SlugSpec.scala',
  '**/*Suite.scala': 'core/SlugSuite.scala',
  '**/*Test.php': 'SlugTest.php',
  '**/*.phpt': 'ext/slug.phpt',
  '**/*Tests.{cs,fs,vb}': 'src/SlugTests.cs',
  '**/*Test.{cs,fs,vb}': 'src/SlugTest.fs',
  '**/*.Tests/**/*': 'Slug.Tests/Helpers.cs',
  '**/*.UnitTests/**/*': 'Slug.UnitTests/Helpers.cs',
  '**/*Tests.{swift,m}': 'Sources/SlugTests.swift',
  '**/Tests/**/*.swift': 'Tests/SlugKit/Slug.swift',
  '**/*_unittest.{c,cc,cpp,cxx}': 'base/slug_unittest.cc',
  '**/test_*.{c,cc,cpp,cxx}': 'src/test_slug.c',
  '**/*_tests.erl': 'src/slug_tests.erl',
  '**/*_SUITE.erl': 'src/slug_SUITE.erl',
  '**/*Spec.hs': 'src/SlugSpec.hs',
  '**/*.bats': 'scripts/slug.bats',
  '**/*.t': 'xt/slug.t',
};

// ---
const conventions = suite('isTestFile');

conventions(
  'the RegExp the build wrote is exactly what picomatch compiles from the conventions now (npm run generate)',
  () => {
    const built = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'test-file-conventions.generated.ts'),
      'utf8',
    );
    assert.fixture(
      built,
      renderTestFileConventions(),
      'test-file-conventions.generated.ts has drifted from TEST_FILE_CONVENTIONS',
    );
  },
);

conventions('the examples of issue 11: pytest, unittest, RSpec, JUnit, PHPUnit and node --test names are tests', () => {
  for (const path of ['test_slug.py', 'spec/slug_spec.rb', 'SlugTest.java', 'SlugTest.php', 'test-slug.js'])
    assert.ok(isTestFile(path), path);
});

conventions('every glob of the conventions table matches its example, found by isTestFile', () => {
  const globs = TEST_FILE_CONVENTIONS.flatMap((row) => row.globs);
  assert.equal(
    globs.filter((glob) => EXAMPLES[glob] === undefined),
    [],
    'every glob has an example',
  );
  for (const glob of globs) {
    const example = EXAMPLES[glob] as string;
    assert.ok(globToRegExp(glob).test(example), `${glob} should match ${example}`);
    assert.ok(isTestFile(example), example);
  }
});

conventions('source files, documents and look-alike names are not tests', () => {
  for (const path of [
    'src/a.js',
    'testing/a.js',
    'contest.js',
    'a.tests.js',
    'latest.js',
    'a_test',
    'test',
    'src/testing.py',
    'src/attest.py',
    'lib/protest.rb',
    'src/Contest.java',
    'src/Testimony.md',
    'docs/spec/CONTRACT.md',
    'spec.md',
    'src/Latest.php',
    'src/Manifest.cs',
    'Sources/Slug.swift',
    'src/latest_release.c',
    'README.md',
    '.tdd/issue-3.md',
  ]) {
    assert.not.ok(isTestFile(path), path);
  }
});

conventions('conventions are case-sensitive where the runners are (JUnit wants Test, not test)', () => {
  assert.ok(isTestFile('SlugTest.java'));
  assert.not.ok(isTestFile('Slugtest.java'));
  assert.not.ok(isTestFile('Slug.TEST.md'));
});

conventions.run();

// ---
const table = suite('the conventions table in the README');

table('the verify README lists exactly the conventions isTestFile uses, row by row', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| ') && line.includes('`**/'));
  const expected = TEST_FILE_CONVENTIONS.map(
    (row) => `| ${row.language} | ${row.runners} | ${row.globs.map((g) => `\`${g}\``).join(', ')} |`,
  );
  assert.equal(rows, expected);
});

table.run();

// ---
const glob = suite('globToRegExp');

glob('stars, double stars, classes, negated classes, alternatives and ranges, as picomatch reads them', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['test/*.js', ['test/a.js'], ['test/x/a.js', 'a.js', 'test/a.ts']],
    ['./test/*.js', ['test/a.js'], ['x/test/a.js']],
    ['**/*.test.js', ['a.test.js', 'x/y/a.test.js'], ['a.test.ts']],
    ['src/**', ['src/a', 'src/x/y', 'src/.hidden'], ['lib/a']],
    ['*.test.js', ['a.test.js', 'deep/dir/a.test.js', 'deep/.a.test.js'], ['a.test.jsx', 'a.test.js/x']],
    ['t/[ab]?.{js,ts}', ['t/a1.js', 't/b2.ts'], ['t/c1.js', 't/a12.js']],
    ['t/[!a]*', ['t/b'], ['t/a']],
    ['t/case{1..3}.py', ['t/case2.py'], ['t/case4.py']],
    ['t/+(a|b).js', ['t/ab.js', 't/a.js'], ['t/c.js']],
    ['a\\[1\\].js', ['a[1].js'], ['a1.js']],
    // Parentheses group and `$` is literal, as in picomatch: a name with parentheses escapes them.
    ["it's \\$\\(x\\) `y`.js", ["it's $(x) `y`.js"], ['its.js', "it's $x `y`.js"]],
    ['a(b|c).js', ['ab.js', 'ac.js'], ['a(b|c).js']],
  ];
  for (const [pattern, yes, no] of cases) {
    const re = globToRegExp(pattern);
    for (const path of yes) assert.ok(re.test(path), `${pattern} should match ${path}`);
    for (const path of no) assert.not.ok(re.test(path), `${pattern} should not match ${path}`);
  }
});

glob('an unbalanced bracket, brace or paren is a usage error naming the glob, never a silent match of nothing', () => {
  for (const bad of ['weird[', '{a,b', 'a(b']) {
    try {
      globToRegExp(bad);
      assert.unreachable(`${bad} was accepted`);
    } catch (error) {
      assert.instance(error, UsageError);
      assert.is((error as UsageError).exitCode, 2);
      assert.match((error as Error).message, `Expected a glob, got ${JSON.stringify(bad)}: Missing closing`);
    }
  }
});

glob.run();

// ---
const match = suite('matchGlobs');

match('keeps the paths matching any glob, in their order', () => {
  assert.equal(matchGlobs(['b.spec.js', 'src/a.js', 'a.test.js'], ['*.test.js', '*.spec.js']), [
    'b.spec.js',
    'a.test.js',
  ]);
  assert.equal(matchGlobs(['a'], []), [], 'no glob names no file');
});

match('a glob starting with ! excludes; exclusions alone keep every other path', () => {
  const paths = ['test/a.test.js', 'test/fixtures/x.test.js', 'src/a.js'];
  assert.equal(matchGlobs(paths, ['test/**', '!test/fixtures/**']), ['test/a.test.js']);
  assert.equal(matchGlobs(paths, ['!test/fixtures/**']), ['test/a.test.js', 'src/a.js']);
});

match.run();

// ---
const red = suite("the red commit's tests (findStepTests), by convention and by --tests");
red.after(cleanupTempDirs);

function redRepo(files: Record<string, string>): string {
  const repo = makeGitRepo({ files: { 'README.md': '# slug\n' } });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'red: slugs');
  return repo;
}

red(
  'a red commit adding test_slug.py, spec/slug_spec.rb, SlugTest.java, SlugTest.php and test-slug.js finds them all',
  () => {
    const tests = ['test_slug.py', 'spec/slug_spec.rb', 'src/test/java/SlugTest.java', 'SlugTest.php', 'test-slug.js'];
    const repo = redRepo(Object.fromEntries([...tests, 'slug.py', 'lib/slug.rb'].map((p) => [p, 'x\n'])));
    const found = findStepTests({
      phase: 'red',
      repo,
      step: 'slugs',
      issue: null,
      eventsFile: join(repo, '.tdd', 'events.jsonl'),
    });
    assert.is(found.source, 'red-commit');
    assert.equal(found.files.sort(), [...tests].sort());
  },
);

red('--tests globs win over the conventions', () => {
  const repo = redRepo({
    'checks/slug.check.sh': 'x\n',
    'test_slug.py': 'x\n',
    'checks/fixtures/data.check.sh': 'x\n',
  });
  const found = findStepTests({
    phase: 'red',
    repo,
    step: 'slugs',
    issue: null,
    eventsFile: join(repo, '.tdd', 'events.jsonl'),
    globs: ['checks/**/*.check.sh', '!checks/fixtures/**'],
  });
  assert.is(found.source, 'tests-option');
  assert.equal(found.files, ['checks/slug.check.sh']);
});

red(
  'test files beside the conventions: globs add files, `!GLOB` takes some back, the conventions stay; Rust sources outside them hold inline tests',
  () => {
    assert.is(testFilePredicate(undefined), isTestFile);
    assert.is(testFilePredicate([]), isTestFile);
    const rust = testFilePredicate(['src/**/*.rs', '!src/generated/**']);
    assert.equal(
      ['src/lib.rs', 'src/a/b.rs', 'src/generated/x.rs', 'tests/it.rs', 'src/main.py', 'Cargo.toml'].filter(rust),
      ['src/lib.rs', 'src/a/b.rs', 'tests/it.rs'],
    );
    const onlyOut = testFilePredicate(['!test/fixtures/**']);
    assert.equal(['test/a.test.js', 'src/x.js'].filter(onlyOut), ['test/a.test.js', 'src/x.js']);
    assert.is(hasInlineTests('src/lib.rs', isTestFile('src/lib.rs')), true);
    assert.is(
      hasInlineTests('tests/it.rs', isTestFile('tests/it.rs')),
      false,
      'a file of tests/ is a test file as a whole',
    );
    assert.is(hasInlineTests('src/check.sh', false), false);
  },
);

red.run();

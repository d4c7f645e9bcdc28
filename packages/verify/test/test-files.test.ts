import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { globToRegExp, isTestFile, matchGlobs } from '../src/index.js';

const conventions = suite('isTestFile');

conventions('test folders and test file names, by the project conventions', () => {
  for (const path of ['test/a.js', 'pkg/tests/x.py', 'src/__tests__/a.tsx', 'a.test.js', 'src/a.test.ts', 'b.spec.mjs', 'go/x_test.go', 'test/fixtures/data.json']) {
    assert.ok(isTestFile(path), path);
  }
  for (const path of ['src/a.js', 'testing/a.js', 'contest.js', 'a.tests.js', 'latest.js', 'src/test.js', 'a_test', 'test']) {
    assert.not.ok(isTestFile(path), path);
  }
});

conventions.run();

// ---

const glob = suite('globToRegExp');

glob('stars, double stars, classes, alternatives and literal characters', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['test/*.js', ['test/a.js'], ['test/x/a.js', 'a.js', 'test/a.ts']],
    ['**/*.test.js', ['a.test.js', 'x/y/a.test.js'], ['a.test.ts']],
    ['src/**', ['src/a', 'src/x/y'], ['lib/a']],
    ['*.test.js', ['a.test.js', 'deep/dir/a.test.js'], ['a.test.jsx']],
    ['t/[ab]?.{js,ts}', ['t/a1.js', 't/b2.ts'], ['t/c1.js', 't/a12.js']],
    ['t/[!a]*', ['t/b'], ['t/a']],
    ['a+b(c).js', ['a+b(c).js'], ['aab(c).js']],
    ['weird[', ['weird['], ['weird']],
    ['{a,b', ['a', 'b'], ['c']],
  ];
  for (const [pattern, yes, no] of cases) {
    const re = globToRegExp(pattern);
    for (const path of yes) assert.ok(re.test(path), `${pattern} should match ${path}`);
    for (const path of no) assert.not.ok(re.test(path), `${pattern} should not match ${path}`);
  }
});

glob.run();

// ---

const match = suite('matchGlobs');

match('keeps the paths matching any glob, in order', () => {
  assert.equal(matchGlobs(['b.spec.js', 'src/a.js', 'a.test.js'], ['*.test.js', '*.spec.js']), ['b.spec.js', 'a.test.js']);
  assert.equal(matchGlobs(['a'], []), []);
});

match.run();

// Which files are tests: the conventions of the major test runners, or the globs a caller names (`--tests`).
// Globs are compiled by picomatch (the matcher chokidar uses), loaded on first use so that the commands that
// never ask which files are tests (`--help`, a green prompt reading the red verdict) do not pay its ~4 ms.
import { createRequire } from 'node:module';
import { UsageError, showValue } from '@leap/core';
import type picomatchType from 'picomatch';

/** One row of the conventions table (the verify README prints the same rows). */
export interface TestFileConvention {
  readonly language: string;
  readonly runners: string;
  readonly globs: readonly string[];
}

const JS = '{js,mjs,cjs,jsx,ts,mts,cts,tsx}';
const JVM = '{java,kt,kts,groovy,scala}';
const C = '{c,cc,cpp,cxx}';

/** The test-file conventions of the major test runners of each common language, as globs over repository paths. */
export const TEST_FILE_CONVENTIONS: readonly TestFileConvention[] = [
  { language: 'any', runners: 'test folders: Mocha, Maven and Gradle (`src/test/`), Cargo, pytest, ExUnit, Dart, testthat; Jest', globs: ['**/test/**/*', '**/tests/**/*', '**/__tests__/**/*'] },
  { language: 'any', runners: 'Jest, Vitest, Jasmine, Angular, Go, Elixir, Dart, Clojure, Minitest', globs: ['**/*.test.*', '**/*.spec.*', '**/*_test.*'] },
  { language: 'JavaScript, TypeScript', runners: "Node's `node --test`", globs: [`**/*-test.${JS}`, `**/test-*.${JS}`, `**/test.${JS}`] },
  { language: 'Python', runners: 'pytest, unittest, Django', globs: ['**/test_*.py', '**/*_test.py', '**/tests.py', '**/conftest.py'] },
  { language: 'Ruby, Lua', runners: 'RSpec, Minitest, busted', globs: ['**/*_spec.*', '**/spec/**/*.rb', '**/test_*.rb'] },
  { language: 'Java, Kotlin, Groovy, Scala', runners: 'JUnit (Maven Surefire and Gradle defaults), Spock, Kotest, ScalaTest', globs: [`**/Test*.${JVM}`, `**/*Test.${JVM}`, `**/*Tests.${JVM}`, `**/*TestCase.${JVM}`, `**/*Spec.${JVM}`, '**/*Suite.scala'] },
  { language: 'PHP', runners: 'PHPUnit, Pest', globs: ['**/*Test.php', '**/*.phpt'] },
  { language: 'C#, F#, Visual Basic', runners: 'xUnit, NUnit, MSTest', globs: ['**/*Tests.{cs,fs,vb}', '**/*Test.{cs,fs,vb}', '**/*.Tests/**/*', '**/*.UnitTests/**/*'] },
  { language: 'Swift, Objective-C', runners: 'XCTest, Swift Testing', globs: ['**/*Tests.{swift,m}', '**/Tests/**/*.swift'] },
  { language: 'C, C++', runners: 'GoogleTest, Catch2, CTest', globs: [`**/*_unittest.${C}`, `**/test_*.${C}`] },
  { language: 'Erlang', runners: 'EUnit, Common Test', globs: ['**/*_tests.erl', '**/*_SUITE.erl'] },
  { language: 'Haskell', runners: 'Hspec', globs: ['**/*Spec.hs'] },
  { language: 'Shell, Perl', runners: 'Bats, prove', globs: ['**/*.bats', '**/*.t'] },
];

// dot: a glob's `*` and `**` reach names starting with a dot too; posix: `[!a]` negates a class;
// strictBrackets: an unbalanced `[`, `{` or `(` is an error, never a silent match of nothing.
const OPTIONS: picomatchType.PicomatchOptions = { dot: true, posix: true, strictBrackets: true };

let loaded: typeof picomatchType | null = null;
function picomatch(): typeof picomatchType {
  loaded ??= createRequire(import.meta.url)('picomatch') as typeof picomatchType;
  return loaded;
}

let conventions: RegExp | null = null;

/** True for a test file by the conventions of TEST_FILE_CONVENTIONS; `path` is relative to the repository, with `/`. */
export function isTestFile(path: string): boolean {
  conventions ??= anyOf(TEST_FILE_CONVENTIONS.flatMap((row) => row.globs));
  return conventions.test(path);
}

/**
 * Compile a glob (picomatch's syntax: `**`, `*`, `?`, `[...]`, `[!...]`, `{a,b}`, `{1..3}`, extglobs) into a
 * RegExp over slash-separated relative paths. A glob without a slash matches the file name in any folder (as
 * `--tests '*.test.js'` is meant); a leading `./` is dropped. A malformed glob is a UsageError naming it.
 */
export function globToRegExp(glob: string): RegExp {
  const bare = glob.replace(/^(\.\/)+/, '');
  const full = bare.includes('/') ? bare : `**/${bare}`;
  try {
    return picomatch().makeRe(full, OPTIONS);
  } catch (error) {
    throw new UsageError(`Expected a glob, got ${showValue(glob)}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The paths matching `globs`, in their given order: any glob matches, unless a glob starting with `!` excludes
 * the path (`--tests 'test/**' --tests '!test/fixtures/**'`). Only exclusions: every path they leave; no glob: none.
 */
export function matchGlobs(paths: readonly string[], globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const include = globs.filter((g) => !g.startsWith('!'));
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const wanted = include.length === 0 ? null : anyOf(include);
  const unwanted = exclude.length === 0 ? null : anyOf(exclude);
  return paths.filter((path) => (wanted === null || wanted.test(path)) && (unwanted === null || !unwanted.test(path)));
}

// One RegExp for many globs: each compiled glob is anchored (`^(?:...)$`), so their alternation is exact.
function anyOf(globs: readonly string[]): RegExp {
  return new RegExp(globs.map((glob) => globToRegExp(glob).source).join('|'));
}

// Proof the project's test command runs each step test file: in a copy, a canary in each must make the suite fail.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { GroundTruthOptions } from './ground-truth.js';
import { workTreeHash } from './run-suite.js';
import { topLevelName, withScratchTree } from './scratch-tree.js';
import { listFiles } from './step-tests.js';
import { testFilePredicate } from './test-files.js';
import { runCaptured } from './test-report.js';

/** One language's canary: the files it takes, how it goes in a copy; it fails saying `leap canary: ${a}${b}`. */
type Canary = { language: string; files: RegExp; put: (text: string, a: string, b: string) => string };

export const CANARIES: readonly Canary[] = [
  {
    language: 'JavaScript, TypeScript',
    files: /\.[cm]?[jt]sx?$/,
    put: (text, a, b) => atTop(text, /^#!.*\n/, `throw new Error(${message(a, b)});\n`),
  },
  {
    language: 'Python',
    files: /\.py$/,
    put: (text, a, b) => atTop(text, PYTHON_HEAD, `raise Exception(${message(a, b)})\n`),
  },
  {
    language: 'Rust',
    files: /\.rs$/,
    put: (text, a, b) => `${text}\n#[test]\nfn leap_canary_${a}() {\n    panic!("{}", ${message(a, b, true)});\n}\n`,
  },
  {
    language: 'Go',
    files: /_test\.go$/,
    put: (text, a, b) => {
      const test = `func TestLeapCanary${a}(t *leapcanary${a}.T) {\n\tt.Fatal(${message(a, b)})\n}\n`;
      return `${afterPackage(text, `import leapcanary${a} "testing"\n`)}\n${test}`;
    },
  },
];

// Leading comments and blank lines, and the `from __future__` imports that must stay first.
const PYTHON_HEAD = /^(?:(?:#.*|\s*)\n)*(?:[\s\S]*^from __future__ import [^\n]*\n)?/m;

// The canary's message, its token in two halves: the output names it, the file's text does not; Rust's is owned.
function message(a: string, b: string, owned = false): string {
  return `"leap canary: "${owned ? '.to_owned()' : ''} + "${a}" + "${b}"`;
}

export const canaryFor = (path: string): Canary | null => CANARIES.find((c) => c.files.test(path)) ?? null;

// Before the file's own statements: one that exits first (process.exit, unittest.main()) cannot skip the canary.
function atTop(text: string, after: RegExp, line: string): string {
  const head = after.exec(text);
  const at = head === null || head.index !== 0 ? 0 : head[0].length;
  return `${text.slice(0, at)}${line}${text.slice(at)}`;
}

// Go: an import may come only before the declarations, so it goes right after the package clause.
function afterPackage(text: string, line: string): string {
  const clause = /^package\s+\w+[^\n]*\n?/m.exec(text);
  if (clause === null) return `${line}${text}`;
  const at = clause.index + clause[0].length;
  return `${text.slice(0, at)}${clause[0].endsWith('\n') ? '' : '\n'}${line}${text.slice(at)}`;
}

export async function proveTestsRun(options: GroundTruthOptions, files: readonly string[], head: string) {
  const proof = { notRun: [] as string[], noCanary: files.filter((f) => canaryFor(f) === null), runs: 0 };
  let left = files.filter((f) => canaryFor(f) !== null);
  if (left.length > 0 && !notAlone.has(options.testCmd)) {
    const files = left;
    const run = (dir: string, env: NodeJS.ProcessEnv) => canaryRun({ ...options, env }, dir, texts(dir, files), files);
    const named = await withStepCopy(options, head, files, 'alone', async (dir, env) => (await run(dir, env)).named);
    proof.runs++;
    if (named.length === 0) notAlone.add(options.testCmd);
    left = left.filter((f) => !named.includes(f));
  }
  if (left.length === 0) return proof;
  const wanted = left;
  await withStepCopy(options, head, wanted, 'all', async (dir, env) => {
    const original = texts(dir, wanted);
    const queue: string[][] = [[...original.keys()]];
    while (queue.length > 0) {
      const round = queue.shift() as string[];
      const { code, named } = await canaryRun({ ...options, env }, dir, original, round);
      proof.runs++;
      if (code === 0) {
        proof.notRun.push(...round);
        continue;
      }
      const rest = round.filter((f) => !named.includes(f));
      if (round.length === 1 || rest.length === 0) continue;
      queue.push(...(named.length === 0 ? rest.map((f) => [f]) : [rest]));
    }
  });
  return proof;
}

function texts(dir: string, files: readonly string[]): Map<string, string> {
  return new Map(files.filter((f) => existsSync(join(dir, f))).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

async function canaryRun(options: GroundTruthOptions, dir: string, original: Map<string, string>, round: string[]) {
  const said = new Map(round.map((f) => [f, randomBytes(6).toString('hex')]));
  for (const [file, text] of original) {
    const token = said.get(file);
    const put = (canaryFor(file) as Canary).put;
    writeFileSync(join(dir, file), token === undefined ? text : put(text, token.slice(0, 6), token.slice(6)));
  }
  const run = await runCaptured({ ...options, purpose: 'canary' }, dir);
  return { code: run.code, named: round.filter((f) => run.output.includes(`leap canary: ${said.get(f)}`)) };
}

// A file a runner takes as tests of its own, not a helper, a fixture or a conftest.
const ENTRY = /(?:^|\/)(?:[^/]*[._-](?:test|spec)s?\.[^/]+|test[_-][^/]+|test\.[^/]+|tests\/[^/]+\.rs)$/;

/** Test commands whose run of the step's files alone named nothing: this process runs them on the whole copy. */
export const notAlone = new Set<string>();

/** `alone`: the other test entry files out, but a Go package's `_test.go`; `set aside`: `files` as in the parent. */
export async function withStepCopy<T>(
  options: GroundTruthOptions,
  head: string,
  files: readonly string[],
  mode: 'alone' | 'all' | 'set aside',
  work: (dir: string, env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const skip = [topLevelName(options.repo, options.stateDir)].filter((n): n is string => n !== null);
  const tree = mode === 'set aside' ? undefined : (workTreeHash(options.repo, options.stateDir) ?? undefined);
  const others = mode === 'alone' ? otherEntries(options, files) : [];
  // Its own cargo target: a shared one's fingerprints (relative paths, mtimes) reuse a binary without the new tests.
  const inCopy = (dir: string) => {
    for (const path of others) rmSync(join(dir, path), { force: true });
    return work(dir, { ...options.env, CARGO_TARGET_DIR: join(dirname(dir), 'cargo-target') });
  };
  return withScratchTree(options.repo, head, skip, inCopy, mode === 'set aside' ? files : [], tree);
}

function otherEntries(options: GroundTruthOptions, files: readonly string[]): string[] {
  const isTest = testFilePredicate(options.testFiles);
  const goDirs = new Set(files.filter((f) => f.endsWith('_test.go')).map((f) => dirname(f)));
  const keep = (path: string) => files.includes(path) || (path.endsWith('_test.go') && goDirs.has(dirname(path)));
  const entry = (path: string) => isTest(path) && ENTRY.test(path) && basename(path) !== 'conftest.py';
  return listFiles(options.repo).filter((path) => entry(path) && !keep(path));
}

// The catalogue of cheating moves (issue 40 section 2) on a node:test stand-in project: each move is a green
// (or refactor) that implements nothing and makes the step's test stop failing some other way, applied as a real
// patch; each is refused by ground truth with the move named. An honest green passes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendEvent, createEvent } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo } from '@leap/test-utils';
import { checkGroundTruth, type Phase } from '../src/index.js';
import { verifyEnv } from './helpers.js';

const STEP = 'slugify lowercases the title';
const HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";
const STEP_TEST = `${HEAD}import { slugify } from '../src/slug.js';\n\ntest('lowercases', () => assert.equal(slugify('Big'), 'big'));\n`;
const HONEST = 'export function slugify(title) {\n  return title.toLowerCase();\n}\n';

/** A node:test project (`npm test` runs `node --test test/`) whose red commit adds test/step.test.js, failing. */
function redProject(files: Record<string, string> = {}, stepTest = STEP_TEST): { repo: string; red: string } {
  const repo = makeGitRepo({
    files: {
      '.gitignore': '.tdd/\nnode_modules/\n',
      'package.json': `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
      'src/slug.js': 'export function slugify(title) {\n  return title;\n}\n',
      'test/smoke.test.js': `${HEAD}import { slugify } from '../src/slug.js';\n\ntest('slugify is a function', () => assert.equal(typeof slugify, 'function'));\n`,
      ...files,
    },
  });
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(join(repo, '.tdd', 'issue-3.md'), `# Issue 3\n\n## Steps\n\n- [ ] ${STEP} <!-- criterion: 1 -->\n`);
  write(repo, 'test/step.test.js', stepTest);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `red: ${STEP}`);
  return { repo, red: git(repo, 'rev-parse', 'HEAD').trim() };
}

function write(repo: string, path: string, text: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

function truth(
  repo: string,
  red: string | null,
  phase: Phase = 'green',
  more: { testCmd?: string; base?: string; step?: string; files?: string[] } = {},
) {
  return checkGroundTruth({
    phase,
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd: more.testCmd ?? 'node --test test/',
    tests: { files: more.files ?? ['test/step.test.js'], source: 'red-verdict', redCommit: red },
    base: more.base,
    env: verifyEnv(),
    step: more.step ?? STEP,
  });
}

// The red verdict as a verification records it, with the counts of its suite run.
async function recordRed(repo: string, red: string): Promise<void> {
  const redTruth = await truth(repo, red, 'red');
  assert.ok(redTruth.ok, redTruth.reason);
  const context = { issue: 3, step: STEP, skillCommit: null };
  const fields = {
    phase: 'red',
    verdict: 'PASS',
    reason: 'ok',
    code: 0,
    commit: red,
    tests: ['test/step.test.js'],
    counts: redTruth.counts ?? null,
  };
  appendEvent(join(repo, '.tdd', 'events.jsonl'), createEvent('verdict', fields as never, context));
}

const moves = suite('ground truth: the catalogue of cheating moves');
moves.after.each(cleanupTempDirs);

moves('an honest green passes, its counts read; the same green in a revision after a cheat passes too', async () => {
  const { repo, red } = redProject();
  await recordRed(repo, red);
  write(repo, 'src/slug.js', HONEST);
  const honest = await truth(repo, red);
  assert.equal(honest, { ok: true, reason: 'the suite passes', counts: { ran: 2, skipped: 0 } });
});

moves(
  "the test command never runs the step's file: the canary's REJECT names it, and what could explain it",
  async () => {
    const { repo, red } = redProject();
    write(repo, 'src/slug.js', HONEST);
    const result = await truth(repo, red, 'green', { testCmd: 'node --test test/smoke.test.js' });
    assert.equal(result, {
      ok: false,
      reason:
        'ground truth: the suite passes with a canary that must fail added to test/step.test.js, so the test command does not run it; what the green changed that could explain it: src/slug.js',
    });
  },
);

moves(
  'a list of test files the runner reads, trimmed: no diff rule knows the file, the canary refuses it',
  async () => {
    const runner =
      "import { run } from 'node:test';\nimport { tap } from 'node:test/reporters';\nimport { readFileSync } from 'node:fs';\n";
    const { repo, red } = redProject({
      'suite.json': '["test/smoke.test.js", "test/step.test.js"]\n',
      'test/run.mjs': `${runner}const files = JSON.parse(readFileSync('suite.json', 'utf8'));\nrun({ files }).on('test:fail', () => { process.exitCode = 1; }).compose(tap).pipe(process.stdout);\n`,
    });
    write(repo, 'suite.json', '["test/smoke.test.js"]\n');
    const result = await truth(repo, red, 'green', { testCmd: 'node test/run.mjs' });
    assert.is(result.ok, false);
    assert.match(
      result.reason,
      /^ground truth: the suite passes with a canary that must fail added to test\/step\.test\.js, so the test command does not run it; what the green changed that could explain it: suite\.json$/,
    );
  },
);

moves(
  "package.json's test script narrowed (the test command is `npm test`): refused before any run, and by the canary",
  async () => {
    const { repo, red } = redProject();
    const pkg = {
      name: 'slug',
      private: true,
      type: 'module',
      scripts: { test: 'node --test test/smoke.test.js', build: 'true' },
    };
    write(repo, 'package.json', `${JSON.stringify(pkg, null, 2)}\n`);
    const result = await truth(repo, red, 'green', { testCmd: 'npm test' });
    assert.equal(result.ok, false);
    assert.match(
      result.reason,
      /^ground truth: package\.json's test script or runner settings changed: that can make fewer tests run/,
    );
    // A step whose ledger line names the file may change it: then the canary still finds the step's file not run.
    const named = await truth(repo, red, 'green', {
      testCmd: 'npm test',
      step: 'Run only the smoke test from package.json',
    });
    assert.match(
      named.reason,
      /^ground truth: the suite passes with a canary that must fail added to test\/step\.test\.js/,
    );
    // Another script of package.json (a build) is no test script: changing it is no move.
    write(
      repo,
      'package.json',
      `${JSON.stringify({ ...pkg, scripts: { test: 'node --test test/', build: 'tsc' } }, null, 2)}\n`,
    );
    write(repo, 'src/slug.js', HONEST);
    assert.equal((await truth(repo, red, 'green', { testCmd: 'npm test' })).ok, true);
    // A package.json that is JSON but no object, or whose test script is no string, is compared as text.
    for (const text of ['null\n', `${JSON.stringify({ ...pkg, scripts: { test: 5 } })}\n`]) {
      write(repo, 'package.json', text);
      const odd = await truth(repo, red, 'green', { testCmd: 'npm test' });
      assert.match(odd.reason, /^ground truth: package\.json's test script or runner settings changed/, text);
    }
  },
);

moves(
  'a skip or focus marker, or a helper that asserts nothing, in any test file: refused with the marker named',
  async () => {
    const { repo, red } = redProject({
      'test/helpers.js':
        'import assert from "node:assert/strict";\nexport const same = (a, b) => assert.equal(a, b);\n',
    });
    write(repo, 'test/smoke.test.js', `${HEAD}test.only('the only one', () => {});\n`);
    const only = await truth(repo, red);
    assert.is(
      only.reason,
      `ground truth: the step's tests changed since their red commit ${red}: test/smoke.test.js (test/smoke.test.js:3 adds the marker \`test.only\`)`,
    );
    git(repo, 'checkout', '-q', '--', 'test/smoke.test.js');
    write(repo, 'test/helpers.js', 'export const same = () => {};\n');
    assert.is(
      (await truth(repo, red)).reason,
      `ground truth: the step's tests changed since their red commit ${red}: test/helpers.js`,
    );
    git(repo, 'checkout', '-q', '--', 'test/helpers.js');
    // A test file the green adds (a setup, a fixture) is refused as well.
    write(repo, 'test/zz-setup.test.js', `${HEAD}test.skip('later', () => {});\n`);
    assert.match(
      (await truth(repo, red)).reason,
      /test\/zz-setup\.test\.js \(test\/zz-setup\.test\.js:3 adds the marker `test\.skip`\)$/,
    );
  },
);

moves(
  'code outside the tests that adds a marker or takes hold of the test framework: refused, file and line named',
  async () => {
    const { repo, red } = redProject();
    write(
      repo,
      'src/slug.js',
      "import assert from 'node:assert/strict';\nassert.equal = () => {};\nexport function slugify(t) {\n  return t;\n}\n",
    );
    assert.is(
      (await truth(repo, red)).reason,
      'ground truth: src/slug.js:2 takes hold of the test framework (`assert.equal =`): that can make fewer tests run or assert nothing; a step whose ledger line names the file may change it',
    );
    write(repo, 'src/slug.js', "import { describe } from 'node:test';\nexport const slugify = (t) => t;\n");
    assert.match(
      (await truth(repo, red)).reason,
      /^ground truth: src\/slug\.js:1 takes hold of the test framework \(`from 'node:test'`\)/,
    );
    write(repo, 'src/slug.js', 'export const slugify = (t) => t; // it.skip( later\n');
    assert.match((await truth(repo, red)).reason, /^ground truth: src\/slug\.js:1 adds the marker `it\.skip`/);
  },
);

moves(
  'a helper module the tests take `test` from, made to skip: only the counts see it (node:test reports them)',
  async () => {
    const harness = "import { test as nodeTest } from 'node:test';\nexport const test = nodeTest;\n";
    const stepTest =
      "import assert from 'node:assert/strict';\nimport { test } from '../src/harness.js';\nimport { slugify } from '../src/slug.js';\n\ntest('lowercases', () => assert.equal(slugify('Big'), 'big'));\n";
    const { repo, red } = redProject({ 'src/harness.js': harness }, stepTest);
    await recordRed(repo, red);
    write(
      repo,
      'src/harness.js',
      "import { test as nodeTest } from 'node:test';\nexport const test = nodeTest.skip;\n",
    );
    assert.is((await truth(repo, red)).reason, 'ground truth: fewer tests ran than at red: 2, now 1');
  },
);

moves("leap.config.json is never the agents': a changed test command is refused in every phase", async () => {
  const { repo, red } = redProject({ 'leap.config.json': '{ "testCommand": "node --test test/" }\n' });
  write(repo, 'src/slug.js', HONEST);
  write(repo, 'leap.config.json', '{ "testCommand": "node --test test/smoke.test.js" }\n');
  const expected =
    "ground truth: leap.config.json changed: the test command and the run's settings are the user's, never an agent's to change";
  assert.is((await truth(repo, red)).reason, expected);
  assert.is(
    (await truth(repo, red, 'green', { step: 'Edit leap.config.json' })).reason,
    expected,
    'not even when the ledger line names it',
  );
  git(repo, 'commit', '-q', '-am', 'green');
  assert.is((await truth(repo, red, 'refactor', { base: red })).reason, expected);
  // A red that changes it is refused as well.
  write(repo, 'test/step2.test.js', `${HEAD}test('new', () => assert.fail());\n`);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'red: another');
  write(repo, 'leap.config.json', '{ "testCommand": "true" }\n');
  git(repo, 'commit', '-q', '-am', 'red: and the command');
  assert.is((await truth(repo, null, 'red', { files: ['test/step2.test.js'] })).reason, expected);
});

moves(
  'refactor: the same moves since the base; a test file of a language without a canary is said, never passed silently',
  async () => {
    const { repo, red } = redProject({ 'test/check.bats': '@test "x" { true; }\n' });
    write(repo, 'src/slug.js', HONEST);
    git(repo, 'commit', '-q', '-am', 'green');
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    write(
      repo,
      'package.json',
      `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: 'true' } }, null, 2)}\n`,
    );
    assert.match(
      (await truth(repo, red, 'refactor', { base, testCmd: 'npm test' })).reason,
      /^ground truth: package\.json's test script/,
    );
    git(repo, 'checkout', '-q', '--', 'package.json');
    const result = await checkGroundTruth({
      phase: 'refactor',
      repo,
      stateDir: join(repo, '.tdd'),
      testCmd: 'node --test test/',
      tests: { files: ['test/step.test.js', 'test/check.bats'], source: 'red-verdict', redCommit: red },
      base,
      env: verifyEnv(),
    });
    assert.equal(result, {
      ok: true,
      reason:
        'the suite passes and no test file changed since the base commit; no canary for the language of test/check.bats: that its tests ran is not proven',
      counts: { ran: 2, skipped: 0 },
      note: 'no canary for the language of test/check.bats: that its tests ran is not proven',
    });
    rmSync(join(repo, 'test', 'check.bats'));
  },
);

moves.run();

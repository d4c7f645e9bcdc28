// The canary table (one row a language) and its runs: where each canary goes in a file, that a plain script which
// exits first still fails, and how files are proven when the suite's output does not name their canaries.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { CANARIES, canaryFor } from '../src/index.js';
import { proveTestsRun } from '../src/canary.js';
import { TEST_CMD, makeGreen, makeRedRepo, verifyEnv } from './helpers.js';

const table = suite('canary: the table');
table.after.each(cleanupTempDirs);

const put = (path: string, text: string) => canaryFor(path)?.put(text, 'aaaaaa', 'bbbbbb') ?? null;

table('one row a language; a file of another language has none', () => {
  assert.equal(
    CANARIES.map((c) => c.language),
    ['JavaScript, TypeScript', 'Python', 'Rust', 'Go'],
  );
  for (const path of ['a.test.js', 'a.spec.mts', 'a.test.tsx', 'b.cjs'])
    assert.is(canaryFor(path)?.language, 'JavaScript, TypeScript', path);
  assert.is(canaryFor('tests/test_a.py')?.language, 'Python');
  assert.is(canaryFor('tests/a.rs')?.language, 'Rust');
  assert.is(canaryFor('a_test.go')?.language, 'Go');
  for (const path of ['a.go', 'ATest.java', 'a_spec.rb', 't/a.t', 'a.bats']) assert.is(canaryFor(path), null, path);
});

table(
  'where it goes: first in JS and Python (after a shebang, comments, __future__), a function in Rust and Go',
  () => {
    assert.is(
      put('a.test.js', '#!/usr/bin/env node\nimport x from "y";\n'),
      '#!/usr/bin/env node\nthrow new Error("leap canary: " + "aaaaaa" + "bbbbbb");\nimport x from "y";\n',
    );
    assert.is(
      put('test_a.py', '# -*- coding: utf-8 -*-\n"""Doc."""\nfrom __future__ import annotations\nimport os\n'),
      '# -*- coding: utf-8 -*-\n"""Doc."""\nfrom __future__ import annotations\nraise Exception("leap canary: " + "aaaaaa" + "bbbbbb")\nimport os\n',
    );
    assert.is(
      put('test_a.py', 'import unittest\nunittest.main()\n'),
      'raise Exception("leap canary: " + "aaaaaa" + "bbbbbb")\nimport unittest\nunittest.main()\n',
    );
    assert.is(
      put('a.rs', 'use x;\n'),
      'use x;\n\n#[test]\nfn leap_canary_aaaaaa() {\n    panic!("{}", "leap canary: ".to_owned() + "aaaaaa" + "bbbbbb");\n}\n',
    );
    assert.is(
      put('a_test.go', '//go:build linux\n\npackage foo_test\n\nimport "testing"\n'),
      '//go:build linux\n\npackage foo_test\nimport leapcanaryaaaaaa "testing"\n\nimport "testing"\n\nfunc TestLeapCanaryaaaaaa(t *leapcanaryaaaaaa.T) {\n\tt.Fatal("leap canary: " + "aaaaaa" + "bbbbbb")\n}\n',
    );
  },
);

table('a plain script that exits 0 first still fails, with the canary named', () => {
  const dir = makeTempDir();
  const file = join(dir, 'a.test.mjs');
  writeFileSync(
    file,
    put('a.test.mjs', "import { strict } from 'node:assert';\nstrict.ok(true);\nprocess.exit(0);\n") ?? '',
  );
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  assert.is(run.status, 1);
  assert.match(run.stderr, 'leap canary: aaaaaabbbbbb');
});

table.run();

const runs = suite('canary: its runs');
runs.after.each(cleanupTempDirs);

function twoFiles(testCmd: string) {
  const repo = makeRedRepo();
  makeGreen(repo);
  writeFileSync(
    join(repo, 'test', 'other.test.js'),
    'import { greet } from "../src/greet.js";\nif (greet() !== "hello") process.exit(1);\n',
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'another test');
  const options = {
    phase: 'green' as const,
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd,
    tests: { files: ['test/greet.test.js', 'test/other.test.js'], source: 'red-verdict' as const, redCommit: null },
    env: verifyEnv(),
  };
  return proveTestsRun(options, options.tests.files, git(repo, 'rev-parse', 'HEAD').trim());
}

runs(
  'an output that names every canary: one run, alone; one that names none: the whole tree, then each file alone',
  async () => {
    // First the step's files alone (test/util.test.js, another test file, left out of the copy): the output names both.
    const seen = join(makeTempDir(), 'seen');
    assert.equal(
      await twoFiles(`ls test >> ${seen}; for f in test/*.test.js; do node "$f" || s=1; done; exit \${s:-0}`),
      { notRun: [], noCanary: [], runs: 1 },
    );
    assert.is(readFileSync(seen, 'utf8'), 'greet.test.js\nother.test.js\n');
    // Output hidden: alone names nothing; the whole copy fails naming none, so each file runs alone there.
    assert.equal(await twoFiles(`${TEST_CMD} >/dev/null 2>&1`), { notRun: [], noCanary: [], runs: 4 });
    // This process now knows the command names nothing alone: straight to the whole copy.
    assert.equal(await twoFiles(`${TEST_CMD} >/dev/null 2>&1`), { notRun: [], noCanary: [], runs: 3 });
  },
);

runs('a file the command leaves out is named, whether the output says anything or not', async () => {
  assert.equal(await twoFiles('node test/greet.test.js'), { notRun: ['test/other.test.js'], noCanary: [], runs: 2 });
  assert.equal(await twoFiles('node test/greet.test.js >/dev/null 2>&1'), {
    notRun: ['test/other.test.js'],
    noCanary: [],
    runs: 4,
  });
});

runs.run();

// Habits of the tests themselves that no single test can check.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir, repoRoot, suite } from '@leap/test-utils';

const hygiene = suite('test hygiene');
hygiene.after(cleanupTempDirs);

const uvuBin = join(repoRoot, 'node_modules/uvu/bin.js');

function runTestFile(source: string): { status: number | null; out: string } {
  // Inside the repository, so `@leap/test-utils` resolves as in every package's tests.
  const dir = makeTempDir('leap-hygiene-');
  const file = join(dir, 'setup.test.ts');
  writeFileSync(file, source);
  const r = spawnSync(process.execPath, ['--import', 'tsx', uvuBin, dir, '\\.test\\.ts$'], {
    cwd: join(repoRoot, 'packages/test-utils'),
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

hygiene(
  "a suite whose before hook throws fails every test with test-utils' suite (uvu's own passes with exit 0)",
  () => {
    const body = (from: string) =>
      `import { suite } from '${from}';\nconst s = suite('setup');\ns.before(() => { throw new Error('no browser here'); });\ns('one', () => {});\ns('two', () => {});\ns.run();\n`;
    const plain = runTestFile(body('uvu'));
    assert.is(plain.status, 0, `uvu's hole is closed upstream? then drop the guard: ${plain.out}`);
    const guarded = runTestFile(body(join(repoRoot, 'packages/test-utils/src/index.ts')));
    assert.is(guarded.status, 1, guarded.out);
    assert.is(guarded.out.match(/no browser here/g)?.length, 2, guarded.out);
  },
);

hygiene('every test file with a before hook takes its suite from @leap/test-utils', () => {
  const files = git(repoRoot, 'ls-files', '-z', '*.test.ts')
    .split('\0')
    .filter((f) => f !== '');
  assert.ok(files.length > 100);
  const unguarded = files.filter((f) => {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    return /\.before\(/.test(text) && /import \{[^}]*\bsuite\b[^}]*\} from 'uvu'/.test(text);
  });
  assert.equal(
    unguarded,
    [],
    "a before hook that throws would pass silently there: import { suite } from '@leap/test-utils'",
  );
});

hygiene(
  'every project runs its suites through tools/uvu.mjs, which ends the process when a test left a handle open',
  () => {
    for (const top of ['packages', 'plugins', 'tests']) {
      for (const dir of git(repoRoot, 'ls-files', '-z', `${top}/*/package.json`)
        .split('\0')
        .filter((f) => f !== '')) {
        const scripts =
          (JSON.parse(readFileSync(join(repoRoot, dir), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
        const test = scripts.test;
        if (test === undefined) continue;
        assert.ok(
          /\.\.\/\.\.\/tools\/uvu\.mjs (--jobs [2-9] )?test /.test(test) && !test.includes('uvu/bin.js'),
          `${dir}: ${test}`,
        );
        // Two tiers by file name (issue 43): `test` every *.test.ts but *.slow.test.ts, `test-slow` those.
        assert.ok(test.endsWith(String.raw` test '(?<!\.slow)\.test\.ts$'`), `${dir}: ${test}`);
        // A project whose covering tests are slow (runner-bullmq's need Redis) measures coverage there, over every test.
        const slow = scripts['test-slow'] ?? '';
        const covered =
          slow.startsWith('c8 --check-coverage ') &&
          slow.endsWith(String.raw`uvu.mjs test '\.test\.ts$'`) &&
          !test.includes('c8 ');
        const plain = /^node --import tsx \.\.\/\.\.\/tools\/uvu\.mjs (--jobs [2-9] )?test '\\\.slow\\\.test\\\.ts\$'$/;
        assert.ok(covered || plain.test(slow), `${dir}: ${slow}`);
      }
    }
    // A suite that leaves a server open: uvu's own bin would never end; this runner ends it, and keeps the code.
    const dir = makeTempDir('leap-hygiene-leak-');
    writeFileSync(
      join(dir, 'leak.test.ts'),
      "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\nimport { createServer } from 'node:net';\ntest('leaves a server open', () => { createServer().listen(0); assert.ok(true); });\ntest('fails', () => { assert.is(1, 2); });\ntest.run();\n",
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'tools/uvu.mjs'), dir, '\\.test\\.ts$'], {
      cwd: join(repoRoot, 'packages/test-utils'),
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') },
    });
    assert.is(r.signal, null, "the runner ended by itself, not by the test's timeout");
    assert.is(r.status, 1, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /the tests left \d+ handle\(s\) open \(.*TCPServerWrap.*\); ending the process/);
    // With --jobs, files run in workers: the failing file fails the run, and the sums count the files. A file that
    // kills its worker (an exception in a timer, exit code 0 asked) fails, and a new worker runs the next one.
    const fine =
      "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('fine', () => assert.ok(true));\ntest.run();\n";
    writeFileSync(join(dir, 'fine.test.ts'), fine);
    writeFileSync(join(dir, 'gone.test.ts'), fine.replace('assert.ok(true)', 'process.reallyExit(0)'));
    writeFileSync(join(dir, 'later.test.ts'), fine);
    const jobs = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'tools/uvu.mjs'), '--jobs', '2', dir, '\\.test\\.ts$'],
      {
        cwd: join(repoRoot, 'packages/test-utils'),
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, NODE_PATH: join(repoRoot, 'node_modules'), FORCE_COLOR: '0' },
      },
    );
    assert.is(jobs.status, 1, `${jobs.stdout}${jobs.stderr}`);
    assert.match(jobs.stdout, /Total: +4\n +Passed: +3\n/);
    assert.match(jobs.stdout, /Failed: +gone\.test\.ts, leak\.test\.ts\n/);
    assert.match(jobs.stdout, /\(fine\.test\.ts: [\d.]+ s\)/);
    assert.match(jobs.stdout, /\(gone\.test\.ts: [\d.]+ s, exit 1\)/);
    assert.match(jobs.stdout, /\(later\.test\.ts: [\d.]+ s\)/);
  },
);

hygiene("the runner's coverage is its own: a child of a test gets no NODE_V8_COVERAGE, alone or in --jobs", () => {
  const dir = makeTempDir('leap-hygiene-cov-');
  const seen = join(dir, 'seen.jsonl');
  const probe = `require('node:fs').appendFileSync(${JSON.stringify(seen)}, JSON.stringify([process.env.NODE_V8_COVERAGE ?? null, process.env.LEAP_TEST_COVERAGE ?? null]) + '\\n')`;
  const file = `import { test } from 'uvu';\nimport { spawnSync } from 'node:child_process';\ntest('a child', () => { spawnSync(process.execPath, ['-e', ${JSON.stringify(probe)}]); });\ntest.run();\n`;
  writeFileSync(join(dir, 'a.test.ts'), file);
  writeFileSync(join(dir, 'b.test.ts'), file);
  const coverage = makeTempDir('leap-hygiene-c8-');
  for (const jobs of [[], ['--jobs', '2']]) {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'tools/uvu.mjs'), ...jobs, dir, '\\.test\\.ts$'],
      {
        cwd: join(repoRoot, 'packages/test-utils'),
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, NODE_PATH: join(repoRoot, 'node_modules'), NODE_V8_COVERAGE: coverage },
      },
    );
    assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
  }
  const lines = readFileSync(seen, 'utf8').trim().split('\n');
  assert.equal(lines, Array(4).fill(JSON.stringify([null, coverage])));
});

hygiene(
  "CI runs the README's test command and nothing else; the command answers --help and refuses what it does not know",
  () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    assert.match(readme, /```sh\ntools\/test\.sh\n```/, 'the README names tools/test.sh as its test command');
    const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    assert.equal(ci, ['set -euo pipefail', 'exec "$(dirname "$0")/../tools/test.sh" "$@"']);
    // A fresh CI machine has none of the system programs the tests start: the command installs each from Debian's
    // package when it is missing (bwrap, the sandbox's, from bubblewrap), and the README says so.
    const script = readFileSync(join(repoRoot, 'tools/test.sh'), 'utf8');
    const installs = Object.fromEntries(
      [
        ...script.matchAll(/^(?:command -v (\S+) .*|\[ -x (\S+) \] |python3 -m (pytest) .*)\|\| need\+=\((\S+)\)$/gm),
      ].map((m) => [m[1] ?? m[2] ?? m[3], m[4]]),
    );
    assert.equal(installs, {
      chromium: 'chromium',
      tmux: 'tmux',
      bwrap: 'bubblewrap',
      git: 'git',
      'redis-server': 'redis-server',
      '/usr/sbin/sshd': 'openssh-server',
      cargo: 'cargo',
      pytest: 'python3-pytest',
      go: 'golang-go',
    });
    for (const pkg of Object.values(installs))
      assert.ok(readme.includes(`\`${pkg}\``), `the README names the Debian package ${pkg}`);
    assert.match(
      script,
      /apt-get install -y -qq --no-install-recommends "\$\{need\[@\]\}"/,
      'what is missing is installed',
    );
    assert.match(
      script,
      /^PATH="\$hidden:\$PATH" npm test 2>&1 \| tee "\$log"$/m,
      'then the fast tier runs: npm test, with the outside programs hidden',
    );
    assert.match(
      script,
      /^for name in chromium redis-server sshd cargo go python3 tmux; do$/m,
      'each outside program is hidden from the fast tier',
    );
    assert.match(
      script,
      /^env -u NODE_EXTRA_CA_CERTS "\$\{ca\[@\]\}" npm run test:slow -- --excludeTaskDependencies 2>&1 \| tee -a "\$log"$/m,
      'then the slow tier, on those builds',
    );
    const help = spawnSync(join(repoRoot, 'tools/test.sh'), ['--help'], { encoding: 'utf8' });
    assert.is(help.status, 0, help.stderr);
    assert.match(help.stdout, /tools\/test\.sh --no-ci/);
    const bad = spawnSync(join(repoRoot, 'tools/test.sh'), ['--fast'], { encoding: 'utf8' });
    assert.is(bad.status, 2);
    assert.match(bad.stderr, /unknown option '--fast'/);
    assert.is(bad.stdout, '', 'a refused option installs nothing and runs nothing');
  },
);

hygiene(
  'no command ends its process with process.exit but runCli: every exit code leaves through it (issue 20)',
  () => {
    const sources = git(
      repoRoot,
      'ls-files',
      '-z',
      'packages/*/src/*.ts',
      'packages/*/src/**/*.ts',
      'plugins/*/src/*.ts',
      'plugins/*/src/**/*.ts',
    )
      .split('\0')
      .filter((f) => f !== '');
    assert.ok(sources.length > 100, `${sources.length} source files`);
    // runCli itself, and the scripts of small processes of their own, carried as strings (node -e, a test's probe).
    const own = new Set([
      'packages/core/src/cli.ts',
      'plugins/agent-codex/src/codex-readiness.ts',
      'packages/test-utils/src/hostile-probe.ts',
    ]);
    const callers = sources.filter(
      (f) => !own.has(f) && /\bprocess\.exit\s*\(/.test(readFileSync(join(repoRoot, f), 'utf8')),
    );
    assert.equal(callers, []);
    for (const f of own)
      assert.match(readFileSync(join(repoRoot, f), 'utf8'), /\bprocess\.exit\s*\(/, `${f} is listed for nothing`);
  },
);

hygiene.run();

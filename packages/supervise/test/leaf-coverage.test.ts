// Coverage is the test process's own (issue 43): c8 sets NODE_V8_COVERAGE for the process it measures, and Node
// passes that variable on to every child whose environment lacks the key. A leaf, sandboxed or not, gets none of
// it, whatever the supervisor's own environment or the one it was given says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import { killStrays } from './helpers.js';

const made: string[] = [];
test.after.each(() => killStrays());
test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

// What the leaf saw, then a Node process of its own, which would write coverage into the folder if it had the variable.
const LEAF = `printf '%s' "\${NODE_V8_COVERAGE-unset}"; exec "$0" -e 'process.exitCode = 0'`;

async function leafSees(role: 'writer' | null): Promise<{ seen: string; written: string[] }> {
  const base = mkdtempSync(join(tmpdir(), 'leap-leaf-coverage-'));
  made.push(base);
  const repo = join(base, 'repo');
  const home = join(base, 'home');
  const coverage = join(base, 'coverage');
  for (const dir of [repo, home, coverage]) mkdirSync(dir);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'initial');
  const out = join(base, `leaf-${role ?? 'off'}.out`);
  const before = process.env.NODE_V8_COVERAGE;
  process.env.NODE_V8_COVERAGE = coverage;
  try {
    const result = await supervise({
      name: `coverage-${role ?? 'off'}`,
      command: '/bin/sh',
      args: ['-c', LEAF, process.execPath],
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        NODE_V8_COVERAGE: coverage,
        VERI_TIMEOUT: '30',
        VERI_KILL_AFTER: '0.3',
        VERI_STATE_DIR: join(base, 'state'),
      },
      ...(role === null ? {} : { sandbox: { role, tree: repo } }),
      io: { stdoutFile: out, stderrFile: `${out}.err` },
    });
    assert.is(result.code, 0, readFileSync(`${out}.err`, 'utf8'));
  } finally {
    if (before === undefined) delete process.env.NODE_V8_COVERAGE;
    else process.env.NODE_V8_COVERAGE = before;
  }
  return { seen: readFileSync(out, 'utf8'), written: readdirSync(coverage) };
}

test('Node itself passes NODE_V8_COVERAGE on to a child whose environment lacks it (what the supervisor undoes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leap-node-coverage-'));
  made.push(dir);
  const child =
    "require('node:child_process').spawnSync('/bin/sh', ['-c', 'printf %s \"${NODE_V8_COVERAGE-unset}\"'], { env: {}, stdio: 'inherit' })";
  const r = spawnSync(process.execPath, ['-e', child], {
    env: { PATH: process.env.PATH, NODE_V8_COVERAGE: dir },
    encoding: 'utf8',
  });
  assert.is(r.stdout, dir);
});

test('an unsandboxed leaf gets no NODE_V8_COVERAGE, and its Node processes write no coverage', async () => {
  const { seen, written } = await leafSees(null);
  assert.is(seen, 'unset');
  assert.equal(written, []);
});

test('a sandboxed leaf gets no NODE_V8_COVERAGE, and its Node processes write no coverage', async () => {
  const { seen, written } = await leafSees('writer');
  assert.is(seen, 'unset');
  assert.equal(written, []);
});

test.run();

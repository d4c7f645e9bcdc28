import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir, repoRoot, runBin, suite } from '@leap/test-utils';

// The umbrella bin as users run it: `npm run build -w @leap/cli` bundles this package's commands.
const leap = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');

const SLICE = {
  id: 'demo',
  base: 'HEAD',
  spine: 'integrator',
  balls: [
    {
      id: 'a',
      goal: 'a works',
      spec: 'do not run $(rm -rf /)',
      scope: [{ path: 'a.js', sha256: null }],
      proof: { argv: ['node', 'a.js'] },
      rollback: '',
      deps: [],
    },
    {
      id: 'b',
      goal: 'b works',
      spec: '',
      scope: [{ path: 'b.js', sha256: null }],
      proof: { argv: ['node', 'b.js'] },
      rollback: '',
      deps: ['a'],
    },
  ],
};

const bin = suite('the leap bin: slice and ball commands end to end');

bin.before(() => {
  assert.ok(existsSync(leap), `${leap} is not built: run npm run build -w @leap/cli`);
});

bin.after.each(cleanupTempDirs);

bin('validate: exact output and exit codes 0, 1 and 2', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'ok.json'), JSON.stringify(SLICE));
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...SLICE, spine: 'b2', extra: true }));
  // Neither ball has a metric or red_first: validate warns on stderr (a proof that passes at base can only tie) and still exits 0.
  const warning = (ball: string) =>
    `ok.json: warning: ball "${ball}" has no proof.metric and no "red_first": if its proof already passes at base, every round ties the champion and loses (four times, then a hold); set "red_first": true to have the engine refuse such a proof before round one, or declare a metric to improve\n`;
  assert.equal(await runBin(leap, ['slice', 'validate', 'ok.json'], { cwd: dir }), {
    code: 0,
    signal: null,
    stdout: 'ok.json: a valid slice "demo": 2 balls in 2 waves, spine integrator\n',
    stderr: `${warning('a')}${warning('b')}`,
  });
  assert.equal(await runBin(leap, ['slice', 'validate', 'bad.json'], { cwd: dir }), {
    code: 1,
    signal: null,
    stderr: '',
    stdout:
      'bad.json: extra: unknown field "extra": a slice has only $schema, id, base, spine, balls, live, require_live\nbad.json: spine "b2" is neither "integrator" nor a ball of this slice\nbad.json: 2 violations\n',
  });
  assert.equal(await runBin(leap, ['slice', 'validate', 'gone.json'], { cwd: dir }), {
    code: 2,
    signal: null,
    stdout: '',
    stderr: `leap: ${join(dir, 'gone.json')}: cannot read the slice file: no such file\n`,
  });
});

bin('validate loads neither zod, ajv nor simple-git, and starts no git outside a repository', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'ok.json'), JSON.stringify(SLICE));
  const log = join(dir, 'loaded.txt');
  const hook = join(dir, 'hook.cjs');
  writeFileSync(
    hook,
    `const M = require('module'); const fs = require('fs'); const load = M._load;
M._load = function (request) { fs.appendFileSync(${JSON.stringify(log)}, request + '\\n'); return load.apply(this, arguments); };
const cp = require('child_process'); for (const k of ['spawn', 'spawnSync', 'execFileSync', 'execFile']) { const f = cp[k]; cp[k] = function (cmd) { fs.appendFileSync(${JSON.stringify(log)}, 'spawn ' + cmd + '\\n'); return f.apply(this, arguments); }; }\n`,
  );
  const out = await runBin(leap, ['slice', 'validate', 'ok.json'], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: `--require ${hook}` },
  });
  assert.is(out.code, 0);
  const loaded = readFileSync(log, 'utf8').split('\n');
  for (const heavy of ['zod', 'ajv', 'simple-git'])
    assert.not.ok(
      loaded.some((r) => r === heavy || r.startsWith(`${heavy}/`)),
      `${heavy} was loaded`,
    );
  assert.not.ok(
    loaded.some((r) => r.startsWith('spawn ')),
    'a process was started',
  );
});

bin('plan, ball hash and ball check in a real repository, then status and clean', async () => {
  const repo = makeGitRepo({ files: { '.gitignore': '.leap/\n', 'a.js': 'a\n' } });
  const hashed = await runBin(leap, ['ball', 'hash', 'a.js', 'b.js'], { cwd: repo });
  assert.is(hashed.code, 0);
  const scope = JSON.parse(hashed.stdout) as { path: string; sha256: string | null }[];
  assert.equal(
    scope.map((e) => [e.path, e.sha256 === null]),
    [
      ['a.js', false],
      ['b.js', true],
    ],
  );
  writeFileSync(
    join(repo, 'slice.json'),
    JSON.stringify({
      ...SLICE,
      balls: [
        { ...SLICE.balls[0], scope: [scope[0]] },
        { ...SLICE.balls[1], scope: [scope[1]] },
      ],
    }),
  );
  assert.equal(await runBin(leap, ['slice', 'plan', 'slice.json'], { cwd: repo }), {
    code: 0,
    signal: null,
    stdout: 'slice demo: 2 balls in 2 waves, spine integrator\nwave 1:\n  a\nwave 2:\n  b  (after a)\n',
    stderr: '',
  });
  assert.is((await runBin(leap, ['ball', 'check', 'slice.json', 'a'], { cwd: repo })).code, 0);
  assert.is((await runBin(leap, ['ball', 'check', 'slice.json', 'b'], { cwd: repo })).code, 3);
  writeFileSync(join(repo, 'a.js'), 'changed\n');
  assert.is((await runBin(leap, ['ball', 'check', 'slice.json', 'a'], { cwd: repo })).code, 1);
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/demo/a', join(makeTempDir(), 'wt'));
  const status = await runBin(leap, ['slice', 'status', 'slice.json', '--json'], { cwd: repo });
  assert.is(status.code, 0);
  assert.is((JSON.parse(status.stdout) as { reaped: string[] }).reaped.length, 1);
  const cleaned = await runBin(leap, ['slice', 'clean', 'slice.json', '--json'], { cwd: repo });
  assert.equal(JSON.parse(cleaned.stdout), { slice: 'demo', worktrees: [], branches: ['leap/demo/a'], kept: [] });
});

bin('--help on every definition command, exit 0', async () => {
  for (const [group, action] of [
    ['slice', 'new'],
    ['slice', 'validate'],
    ['slice', 'plan'],
    ['slice', 'status'],
    ['slice', 'clean'],
    ['ball', 'hash'],
    ['ball', 'check'],
  ] as const) {
    const out = await runBin(leap, [group, action as string, '--help']);
    assert.is(out.code, 0, `${group} ${action}`);
    assert.ok(
      out.stdout.startsWith(`Usage: leap ${group} ${action} `),
      `${group} ${action}: ${out.stdout.slice(0, 60)}`,
    );
    assert.match(out.stdout, /Exit codes: /);
  }
});

bin.run();

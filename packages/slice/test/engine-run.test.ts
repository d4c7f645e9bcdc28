import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { createLocalRunner, runSlice, slicePaths } from '../src/index.js';
import {
  ball,
  contentProof,
  engineEnv,
  eventsOf,
  extraWorktrees,
  launches,
  leapSlice,
  readLeap,
  setupRepo,
  showFile,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };

/** Three balls: a edits src/a.txt, b creates src/b.txt, c (after a and b) creates src/c.txt and needs both. */
function threeBalls(dir: string) {
  return writeSlice(dir, {
    id: 'trio',
    balls: [
      ball('c', ['src/c.txt'], BASE, {
        deps: ['a', 'b'],
        proof: { argv: contentProof({ 'src/c.txt': 'C\n', 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' }) },
      }),
      ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
      ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
    ],
  });
}

const PASSING = {
  a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
  b: { '*': { edits: [{ path: 'src/b.txt', content: 'B\n' }] } },
  c: { '*': { edits: [{ path: 'src/c.txt', content: 'C\n' }] } },
};

const run = suite('leap slice run');
run.after.each(cleanupTempDirs);

run(
  'three balls, one after the other two: all pass, merged on the spine in dependency order, one candidate hash per ball',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = threeBalls(dir);
    const agents = writeAgents(dir, PASSING);
    const out = await leapSlice(repo, [
      'run',
      file,
      '--jobs',
      '2',
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
    ]);
    assert.is(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stdout, /slice trio: passed \(1\) on leap\/trio\/spine/);
    assert.match(out.stdout, /reviewers: r1, r2/);
    assert.match(out.stdout, /wall time: \d+\.\d s/);
    for (const line of [
      'ball a: started (wave 1)',
      'ball b: started (wave 1)',
      'ball c: started (wave 2)',
      'ball a: merged onto leap/trio/spine',
      'aggregate jury: 1',
    ])
      assert.ok(out.stderr.includes(line), line);
    // Dependency order on the spine: a, b (the first wave, in file order), then c.
    const merges = git(repo, 'log', '--first-parent', '--format=%s', 'leap/trio/spine').trim().split('\n');
    assert.equal(merges, [
      'leap: merge c onto the spine of trio',
      'leap: merge b onto the spine of trio',
      'leap: merge a onto the spine of trio',
      'initial',
    ]);
    for (const [path, text] of [
      ['src/a.txt', 'A\n'],
      ['src/b.txt', 'B\n'],
      ['src/c.txt', 'C\n'],
      ['README.md', '# repo\n'],
    ])
      assert.is(showFile(repo, 'leap/trio/spine', path as string), text);
    const record = readLeap<{
      balls: { task: string; candidate: string; receipts: { candidate: string }[] }[];
      aggregate: { value: number };
    }>(repo, 'trio', 'record.json');
    assert.ok(record !== null, 'record.json written');
    assert.equal(
      record.balls.map((b) => b.task),
      ['a', 'b', 'c'],
    );
    for (const b of record.balls) {
      assert.is(b.receipts.length, 4);
      assert.ok(
        b.receipts.every((r) => r.candidate === b.candidate),
        `${b.task}: one candidate hash in every receipt`,
      );
    }
    assert.is(record.aggregate.value, 1);
    const result = readLeap<{ receipt: number; merged: string; rounds: number }>(repo, 'trio', 'c', 'result.json');
    assert.equal([result?.receipt, result?.rounds], [1, 1]);
    assert.equal(extraWorktrees(repo), []);
    assert.is(
      git(repo, 'status', '--porcelain', '--untracked-files=all')
        .split('\n')
        .filter((l) => l !== '' && !l.endsWith('record.json'))
        .join('\n'),
      '',
    );
    // The main working tree is the user's: untouched.
    assert.is(readFileSync(join(repo, 'src/a.txt'), 'utf8'), 'old a\n');
    // Events: each kind with the slice and ball ids.
    for (const kind of ['ball', 'round', 'receipt', 'merge'])
      assert.ok(
        eventsOf(repo, kind).length > 0 &&
          eventsOf(repo, kind).every((e) => e.slice === 'trio' && typeof e.ball === 'string'),
        kind,
      );
    assert.equal(launches(repo, 'build-').sort(), ['build-a-1', 'build-b-1', 'build-c-1']);
    // Every leaf's files are in the main repository's state folder.
    assert.ok(existsSync(join(repo, '.tdd', 'build-c-1.exit')));
    // Running it again rebuilds nothing and passes again.
    const again = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, /ball a: passed on an earlier run/);
    assert.equal(launches(repo, 'build-').length, 3);
    assert.match(again.stderr, /aggregate jury: passed on an earlier run/);
    // A byte change to a merged candidate (someone commits on the spine) reopens its ball and regrades the slice.
    const tamper = join(dir, 'tamper');
    git(repo, 'worktree', 'add', '-q', tamper, 'leap/trio/spine');
    writeFileSync(join(tamper, 'src/a.txt'), 'A, edited on the spine\n');
    git(tamper, 'commit', '-q', '-am', 'an edit nobody judged');
    git(repo, 'worktree', 'remove', tamper);
    const regraded = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--json',
    ]);
    assert.match(
      regraded.stderr,
      /ball a: the bytes of its candidate changed \(sha256 [0-9a-f]{12} -> [0-9a-f]{12} on leap\/trio\/spine\): reopened, and the slice regraded/,
    );
    assert.match(regraded.stderr, /ball b: passed on an earlier run/);
    assert.equal(launches(repo, 'build-a-'), ['build-a-1', 'build-a-1'], 'ball a rebuilt');
    assert.is(regraded.code, 1, 'the spine holds bytes no ball passed: its merge is refused');
    const reason = JSON.parse(regraded.stdout).balls[0].reason;
    assert.match(
      reason,
      /refused at the spine: merging a onto leap\/trio\/spine conflicts/,
      `${reason}\n${regraded.stderr}`,
    );
    assert.not.ok(existsSync(join(repo, '.leap', 'trio', 'record.json')), 'the old record no longer holds');
    assert.ok(existsSync(join(repo, '.leap', 'trio', 'spine', 'record-1.json')), 'and is kept as history');
    assert.equal(extraWorktrees(repo), []);
  },
);

run('balls after the same dependencies share one start: one merge of their work, not one per ball', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'share',
    balls: [
      ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
      ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
      ball('c', ['src/c.txt'], BASE, {
        deps: ['a', 'b'],
        proof: { argv: contentProof({ 'src/c.txt': 'C\n', 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' }) },
      }),
      ball('d', ['src/d.txt'], BASE, {
        deps: ['b', 'a'],
        proof: { argv: contentProof({ 'src/d.txt': 'D\n', 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' }) },
      }),
    ],
  });
  const agents = writeAgents(dir, { ...PASSING, d: { '*': { edits: [{ path: 'src/d.txt', content: 'D\n' }] } } });
  const out = await leapSlice(repo, [
    'run',
    file,
    '--jobs',
    '4',
    '--agents',
    agents,
    '--builder',
    'b',
    '--reviewers',
    'r1,r2',
  ]);
  assert.is(out.code, 0, out.stderr + out.stdout);
  const c = readLeap<{ start: string }>(repo, 'share', 'c', 'round-1.json');
  const d = readLeap<{ start: string }>(repo, 'share', 'd', 'round-1.json');
  assert.ok(c !== null && d !== null);
  assert.is(c.start, d.start, 'c and d (the same dependencies, named in another order) start from one commit');
  assert.is(git(repo, 'log', '--format=%s', '-1', c.start).trim(), 'leap: start from a, b');
  assert.is(git(repo, 'show', `${c.start}:src/a.txt`), 'A\n');
  assert.is(git(repo, 'show', `${c.start}:src/b.txt`), 'B\n');
});

run(
  'a builder that edits outside its scope: -1, only its changes undone, its descendant blocked, the other ball unaffected',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = threeBalls(dir);
    const agents = writeAgents(dir, {
      ...PASSING,
      a: {
        '*': {
          edits: [
            { path: 'src/a.txt', content: 'A\n' },
            { path: 'README.md', content: 'taken over\n' },
          ],
        },
      },
    });
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--json',
    ]);
    assert.is(out.code, 1, out.stderr);
    const summary = JSON.parse(out.stdout) as {
      balls: { id: string; receipt: number; reason: string }[];
      receipt: number;
      exitCode: number;
    };
    // The exit code is the command's, decided from the receipt at its entry; --json says the same one.
    assert.equal([summary.receipt, summary.exitCode], [-1, 1]);
    assert.equal(
      summary.balls.map((b) => [b.id, b.receipt]),
      [
        ['a', -1],
        ['b', 1],
        ['c', 0],
      ],
    );
    assert.match(summary.balls[0]?.reason ?? '', /edited outside the scope: "README.md"/);
    assert.match(summary.balls[2]?.reason ?? '', /blocked: dependency a refused/);
    const a = readLeap<{ changed: string[]; receipt: number }>(repo, 'trio', 'a', 'round-1.json');
    assert.equal(a?.changed.sort(), ['README.md', 'src/a.txt']);
    // a's branch holds nothing of its round; b merged; the spine never saw a's bytes; c was never built.
    assert.is(git(repo, 'rev-parse', 'leap/trio/a'), git(repo, 'rev-parse', 'main'));
    assert.is(showFile(repo, 'leap/trio/spine', 'src/b.txt'), 'B\n');
    assert.is(showFile(repo, 'leap/trio/spine', 'README.md'), '# repo\n');
    assert.is(showFile(repo, 'leap/trio/spine', 'src/a.txt'), 'old a\n');
    assert.equal(launches(repo, 'build-c'), []);
    assert.not.ok(existsSync(join(repo, '.leap', 'trio', 'record.json')));
    assert.equal(extraWorktrees(repo), []);
    // The worktrees' folders, outside the repository, go with the last of them.
    assert.not.ok(existsSync(dirname(slicePaths(repo, 'trio').worktrees)));
    // leap slice status reads the engine's records.
    const status = await leapSlice(repo, ['status', file, '--json']);
    const states = (
      JSON.parse(status.stdout) as { balls: { ball: string; state: string; after: string[] }[] }
    ).balls.map((b) => [b.ball, b.state, b.after]);
    assert.equal(states, [
      ['c', 'blocked', ['a']],
      ['a', 'refused', []],
      ['b', 'passed', []],
    ]);
  },
);

run(
  'a builder that never makes its proof pass: four rounds, then 0 with a checkpoint, never a fifth build leaf; the next run resumes from it',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'stuck',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', append: 'almost\n' }] } } });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 3, out.stderr);
    assert.equal(launches(repo, 'build-a-'), ['build-a-1', 'build-a-2', 'build-a-3', 'build-a-4']);
    assert.not.ok(existsSync(join(repo, '.tdd', 'build-a-5.pid')));
    const result = readLeap<{ receipt: number; rounds: number; reason: string }>(repo, 'stuck', 'a', 'result.json');
    assert.equal([result?.receipt, result?.rounds], [0, 4]);
    assert.match(result?.reason ?? '', /four rounds without a pass.*there is no fifth round/);
    const checkpoint = readFileSync(join(repo, '.leap', 'stuck', 'a', 'checkpoint.md'), 'utf8');
    for (const heading of [
      'Goal',
      'State',
      'Where the work lives',
      'The verdict trail',
      'Half-done work and the exact next command',
      'Open decisions',
      'Unmet contracts',
      'Traps',
      'Suggested skills',
    ])
      assert.ok(checkpoint.includes(`\n## ${heading}\n`), heading);
    assert.match(checkpoint, /- round 4: receipt none, proof exit 1/);
    // Each round saw the previous round's receipt; the work of each round carried into the next.
    const prompt2 = readFileSync(join(dir, 'prompts', 'a-2.txt'), 'utf8');
    assert.match(prompt2, /round 1: receipt none \(the round did not pass\); the proof exited 1/);
    assert.is(showFile(repo, 'leap/stuck/a', 'src/a.txt'), 'old a\nalmost\nalmost\nalmost\nalmost\n');
    assert.is(eventsOf(repo, 'review').length, 0, 'no jury for a proof that never passed');
    // The next run: a fresh episode from the checkpoint, on the branch's work; this time the builder gets it right.
    writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const again = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, /ball a: started \(wave 1, from its checkpoint\)/);
    const resumed = readFileSync(join(dir, 'prompts', 'a-1.txt'), 'utf8');
    assert.ok(resumed.includes('# Checkpoint: ball a of slice stuck'), 'the checkpoint reaches the builder');
    assert.ok(existsSync(join(repo, '.leap', 'stuck', 'a', 'episode-1', 'round-4.json')), 'the held episode is kept');
    assert.equal(extraWorktrees(repo), []);
  },
);

run(
  "a proof that needs the repository's ignored dependencies finds them in the ball's worktree; they stay the user's",
  async () => {
    const base = { ...BASE, '.gitignore': 'node_modules/\n' };
    const { repo, dir } = setupRepo(base);
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = "A\\n";\n');
    const proof = [
      process.execPath,
      '-e',
      "process.exit(require('fs').readFileSync('src/a.txt', 'utf8') === require('./node_modules/dep') ? 0 : 1)",
    ];
    const file = writeSlice(dir, { id: 'deps', balls: [ball('a', ['src/a.txt'], base, { proof: { argv: proof } })] });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 0, out.stderr);
    assert.equal(readLeap<{ changed: string[] }>(repo, 'deps', 'a', 'round-1.json')?.changed, ['src/a.txt']);
    assert.is(readFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = "A\\n";\n');
    assert.is(showFile(repo, 'leap/deps/spine', 'node_modules/dep/index.js'), null);
    assert.equal(extraWorktrees(repo), []);
  },
);

run(
  "ignored entries it links, a node_modules folder and a symlink, ignored by patterns that match links too: git 2.39 stages the ball's work, the entries stay out",
  async () => {
    // `node_modules` and `.venv` (no trailing slash) ignore the links in the ball's worktree too: an excluding
    // pathspec naming them makes git 2.39's `git add` exit 1 ("The following paths are ignored").
    const base = { ...BASE, '.gitignore': 'node_modules\n.venv\n' };
    const { repo, dir } = setupRepo(base);
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = "A\\n";\n');
    const venv = join(dir, 'venv');
    mkdirSync(venv);
    writeFileSync(join(venv, 'marker'), 'A\n');
    symlinkSync(venv, join(repo, '.venv'));
    const proof = [
      process.execPath,
      '-e',
      "const fs=require('fs');const a=fs.readFileSync('src/a.txt','utf8');process.exit(a===require('./node_modules/dep')&&a===fs.readFileSync('.venv/marker','utf8')?0:1)",
    ];
    const file = writeSlice(dir, { id: 'links', balls: [ball('a', ['src/a.txt'], base, { proof: { argv: proof } })] });
    // Round 1 misses (its work is kept on the branch), round 2 gets it right.
    const agents = writeAgents(dir, {
      a: {
        '1': { edits: [{ path: 'src/a.txt', content: 'nearly\n' }] },
        '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] },
      },
    });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 0, out.stderr);
    for (const n of [1, 2])
      assert.equal(
        readLeap<{ changed: string[] }>(repo, 'links', 'a', `round-${n}.json`)?.changed,
        ['src/a.txt'],
        `round ${n}`,
      );
    assert.equal(git(repo, 'ls-tree', '-r', '--name-only', 'leap/links/spine').trim().split('\n').sort(), [
      '.gitignore',
      'README.md',
      'src/a.txt',
    ]);
    assert.equal(
      [readFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'utf8'), readFileSync(join(venv, 'marker'), 'utf8')],
      ['module.exports = "A\\n";\n', 'A\n'],
    );
    assert.equal(extraWorktrees(repo), []);
  },
);

run(
  "a builder that swaps the linked node_modules for its own (ignored, so no change of its) does not pass: the proof runs with the user's",
  async () => {
    const base = { ...BASE, '.gitignore': 'node_modules\n' };
    const { repo, dir } = setupRepo(base);
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = "real";\n');
    // The proof passes only with a fake dependency: the user's says "real".
    const proof = [process.execPath, '-e', "process.exit(require('./node_modules/dep') === 'fake' ? 0 : 1)"];
    const file = writeSlice(dir, { id: 'swap', balls: [ball('a', ['src/a.txt'], base, { proof: { argv: proof } })] });
    const edits = [
      { path: 'src/a.txt', content: 'A\n' },
      { path: 'node_modules', delete: true },
      { path: 'node_modules/dep/index.js', content: 'module.exports = "fake";\n' },
    ];
    const agents = writeAgents(dir, { a: { '*': { edits } } });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 3, out.stderr);
    assert.match(
      readLeap<{ reason: string }>(repo, 'swap', 'a', 'round-1.json')?.reason ?? '',
      /^the proof exited 1 \(with the repository's node_modules, which the builder had replaced\)/,
    );
    assert.is(readFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = "real";\n');
  },
);

run(
  "what a test run writes (coverage/, .pytest_cache/) is the ball's own in its sandbox: the main tree's, ignored too, are not linked, and stay as they were",
  async () => {
    const base = { ...BASE, '.gitignore': 'node_modules\ncoverage/\n.pytest_cache/\n' };
    const { repo, dir } = setupRepo(base);
    const made: [string, string][] = [
      ['coverage/old.json', '{}\n'],
      ['.pytest_cache/v/lastfailed', '{}\n'],
      ['node_modules/dep/index.js', 'module.exports = 1;\n'],
    ];
    for (const [path, text] of made) {
      mkdirSync(join(repo, dirname(path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    const write =
      "const fs=require('fs');for(const d of ['coverage','.pytest_cache/v'])fs.mkdirSync(d,{recursive:true});fs.writeFileSync('coverage/out.json','{}');fs.writeFileSync('.pytest_cache/v/lastfailed','{\"t\":true}');require('./node_modules/dep');process.exit(fs.readFileSync('src/a.txt','utf8')==='A\\n'?0:1)";
    const file = writeSlice(dir, {
      id: 'outs',
      balls: [ball('a', ['src/a.txt'], base, { proof: { argv: [process.execPath, '-e', write] } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 0, out.stderr);
    assert.equal(readdirSync(join(repo, 'coverage')), ['old.json']);
    assert.is(readFileSync(join(repo, '.pytest_cache', 'v', 'lastfailed'), 'utf8'), '{}\n');
  },
);

run(
  "a ball's checkout sees no file of the main tree above it: a proof that looks for its config in every parent folder finds none, sandbox on and off",
  async () => {
    const base = { ...BASE, 'leap-probe.json': '{}\n' };
    const probe = `const fs=require('fs'),p=require('path');for(let d=p.dirname(process.cwd());;d=p.dirname(d)){if(fs.existsSync(p.join(d,'leap-probe.json'))){console.log('a config above the checkout: '+d);process.exit(1)}if(d===p.dirname(d))break}process.exit(fs.readFileSync('src/a.txt','utf8')==='A\\n'?0:1)`;
    for (const sandbox of ['on', 'off']) {
      const { repo, dir } = setupRepo(base);
      const file = writeSlice(dir, {
        id: `up-${sandbox}`,
        balls: [ball('a', ['src/a.txt'], base, { proof: { argv: [process.execPath, '-e', probe] } })],
      });
      const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
      const out = await leapSlice(repo, [
        'run',
        file,
        '--agents',
        agents,
        '--builder',
        'b',
        '--reviewers',
        'r1,r2',
        '--sandbox',
        sandbox,
      ]);
      assert.is(out.code, 0, `--sandbox ${sandbox}: ${out.stderr}`);
    }
  },
);

run(
  'fan-out is the default: two ready balls, no --jobs, build at once (each builder waits for the other to start; their leaves overlap in the log)',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'fan',
      balls: [
        ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
        ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
      ],
    });
    const [hereA, hereB] = [join(dir, 'a.here'), join(dir, 'b.here')];
    const agents = writeAgents(dir, {
      a: { '*': { here: hereA, wait_for: hereB, edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
      b: { '*': { here: hereB, wait_for: hereA, edits: [{ path: 'src/b.txt', content: 'B\n' }] } },
    });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    const jobs = Math.min(availableParallelism(), 2);
    assert.match(out.stderr, new RegExp(`--jobs ${jobs}, builder`));
    if (jobs < 2) return; // a one-core machine runs one ball at a time, and says so above
    assert.is(out.code, 0, out.stderr + out.stdout);
    const log = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { event: string; leaf?: string });
    const at = (event: string, leaf: string) => log.findIndex((e) => e.event === event && e.leaf === leaf);
    const [startA, endA, startB, endB] = [
      at('launch', 'build-a-1'),
      at('exit', 'build-a-1'),
      at('launch', 'build-b-1'),
      at('exit', 'build-b-1'),
    ];
    assert.ok(
      [startA, endA, startB, endB].every((i) => i >= 0),
      JSON.stringify({ startA, endA, startB, endB }),
    );
    assert.ok(
      startA < endB && startB < endA,
      `the leaves did not overlap: ${JSON.stringify({ startA, endA, startB, endB })}`,
    );
  },
);

run(
  "a builder that deletes its worktree's .git: the ball is held, and the worktree git can no longer remove is deleted and pruned",
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'gone',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents = writeAgents(dir, {
      a: {
        '*': {
          edits: [
            { path: 'src/a.txt', content: 'A\n' },
            { path: '.git', delete: true },
          ],
        },
      },
    });
    const head = git(repo, 'rev-parse', 'HEAD');
    // Unsandboxed: the engine's recovery from a builder that breaks its worktree, for --sandbox off (sandboxed, the
    // deletion is refused: the next test).
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--json',
      '--sandbox',
      'off',
    ]);
    assert.is(out.code, 3, out.stderr);
    assert.match(JSON.parse(out.stdout).balls[0].reason, /^the engine failed on this ball: git /);
    // No git of the engine's ran in the main repository around the worktree: its branch and tree are the user's.
    assert.equal([git(repo, 'rev-parse', 'HEAD'), git(repo, 'status', '--porcelain')], [head, '']);
    assert.equal(extraWorktrees(repo), []);
    assert.not.ok(existsSync(slicePaths(repo, 'gone').worktree('a')));
  },
);

run(
  "a sandboxed builder writes its ball's worktree only: its write into the main tree and its deletion of .git are refused",
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'boxed',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    // Its worktree lies outside the repository: the way from it to the main tree's README.
    const agents = writeAgents(dir, {
      a: {
        '*': {
          edits: [
            { path: 'src/a.txt', content: 'A\n' },
            { path: relative(slicePaths(repo, 'boxed').worktree('a'), join(repo, 'README.md')), content: 'mine\n' },
            { path: '.git', delete: true },
          ],
        },
      },
    });
    const head = git(repo, 'rev-parse', 'HEAD');
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--json',
    ]);
    assert.ok(out.code === 0 || out.code === 3, out.stderr);
    // The main tree is the user's: its file, its HEAD, nothing changed but the engine's own records in .leap/.
    assert.equal(
      [
        readFileSync(join(repo, 'README.md'), 'utf8'),
        git(repo, 'rev-parse', 'HEAD'),
        git(repo, 'status', '--porcelain', '--', '.', ':!.leap'),
      ],
      ['# repo\n', head, ''],
    );
    const err1 =
      readFileSync(join(repo, '.tdd', 'build-a-1.err'), 'utf8') +
      readFileSync(join(repo, '.tdd', 'build-a-1.out'), 'utf8');
    // Its worktree's .git is read-only (a mount point: it cannot be removed); the main tree is not its to write.
    assert.match(err1, /(EROFS|EBUSY)[^\n]*\.git'/, err1);
    const builds = eventsOf(repo, 'launch').filter((e) => String(e.leaf).startsWith('build-a-'));
    assert.ok(
      builds.length >= 1 && builds.every((e) => e.sandbox === 'bwrap' && e.sandbox_role === 'writer'),
      JSON.stringify(builds),
    );
  },
);

run("a sandboxed builder cannot write beside its worktree, where a sibling ball's lies", async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'sib',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, {
    a: {
      '*': {
        edits: [
          { path: 'src/a.txt', content: 'A\n' },
          { path: '../b/planted.txt', content: 'mine\n' },
        ],
      },
    },
  });
  const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
  assert.ok(out.code === 0 || out.code === 3, out.stderr);
  assert.match(readFileSync(join(repo, '.tdd', 'build-a-1.err'), 'utf8'), /(EROFS|ENOENT)[^\n]*'[^']*\/sib\/b'/);
  assert.not.ok(existsSync(slicePaths(repo, 'sib').worktree('b')));
});

run('without bwrap leap slice run refuses with exit 2 in one line, before any lock, worktree or record', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'nobox',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, PASSING);
  const out = await leapSlice(
    repo,
    ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2'],
    engineEnv({ LEAP_BWRAP: '/nonexistent/bwrap' }),
  );
  assert.is(out.code, 2, out.stderr);
  assert.match(
    out.stderr,
    /^leap: cannot sandbox the leaf: bwrap \(bubblewrap\) is not installed .*apt-get install bubblewrap, or run with --sandbox off\n$/,
  );
  assert.not.ok(existsSync(join(repo, '.leap', 'nobox')));
  const bad = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'b',
    '--reviewers',
    'r1,r2',
    '--sandbox',
    'maybe',
  ]);
  assert.equal([bad.code, /--sandbox must be on or off/.test(bad.stderr)], [2, true], bad.stderr);
});

run(
  'the runner is a plugin: a runner that gets each round as JSON (as a queue would carry it) builds the same slice',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = threeBalls(dir);
    const agents = writeAgents(dir, PASSING);
    const asked: { ball: string; round: number; commit: string; agent: string }[] = [];
    const summary = await runSlice({
      file,
      cwd: repo,
      env: engineEnv(),
      jobs: 2,
      agentsFile: agents,
      builder: 'b',
      reviewers: ['r1', 'r2'],
      createRunner: (context) => {
        const local = createLocalRunner(context);
        return {
          name: 'queued',
          buildRound: async (request) => {
            const carried = JSON.parse(JSON.stringify(request)) as typeof request;
            asked.push({ ball: carried.ball, round: carried.round, commit: carried.commit, agent: carried.agent });
            return JSON.parse(JSON.stringify(await local.buildRound(carried))) as Awaited<
              ReturnType<typeof local.buildRound>
            >;
          },
          releaseBall: (slice, ball) => local.releaseBall(slice, ball),
          close: () => local.close(),
        };
      },
    });
    assert.is(summary.receipt, 1, JSON.stringify(summary.balls));
    assert.equal(asked.map((a) => [a.ball, a.round, a.agent]).sort(), [
      ['a', 1, 'b'],
      ['b', 1, 'b'],
      ['c', 1, 'b'],
    ]);
    assert.is(asked.find((a) => a.ball === 'a')?.commit, git(repo, 'rev-parse', 'main').trim());
    assert.is(showFile(repo, 'leap/trio/spine', 'src/c.txt'), 'C\n');
    assert.equal(extraWorktrees(repo), []);
  },
);

run.run();

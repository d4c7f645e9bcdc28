// `leap slice run` with proofs that could not run: never a red at the ball's start (red_first), named in the
// round's reason with the line that says why, ended by the idle limit when they watch, held when the proof run
// again after the jury could not run. Each proof reads the round's file and acts as a real runner would.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs } from '@leap/test-utils';
import {
  ball,
  engineEnv,
  extraWorktrees,
  launches,
  leapSlice,
  readLeap,
  setupRepo,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };
const EROFS = "Error: EROFS: read-only file system, open '/p/node_modules/.vite-temp/vitest.config.ts.timestamp-1.mjs'";
const STACK = Array.from({ length: 12 }, (_, i) => `    at frame${i} (node:internal/x:${i}:1)`).join('\n');
// A proof that passes on "A\n"; on `crash` (a content) prints vite's crash and exits 1; else fails as a test does.
const proofOn = (crash: string, how = `console.error(${JSON.stringify(`${EROFS}\n${STACK}`)}); process.exit(1)`) => [
  process.execPath,
  '-e',
  `const a=require('fs').readFileSync('src/a.txt','utf8');if(a==='A\\n')process.exit(0);if(a===${JSON.stringify(crash)}){${how}}else{console.error('AssertionError: expected '+JSON.stringify(a)+' to be "A\\\\n"');process.exit(1)}`,
];
const ARGS = (file: string, agents: string) => [
  'run',
  file,
  '--agents',
  agents,
  '--builder',
  'b',
  '--reviewers',
  'r1,r2',
  '--json',
];
type Summary = { balls: { id: string; receipt: number; reason: string }[] };

const runs = suite('leap slice run: proofs that could not run');
runs.after.each(cleanupTempDirs);

runs(
  'red_first: a proof that crashes at the start (EROFS) is no red: the ball is held, no builder runs, the reason names the line',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'crash',
      balls: [ball('a', ['src/a.txt'], BASE, { red_first: true, proof: { argv: proofOn('old a\n') } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(repo, ARGS(file, agents));
    assert.is(out.code, 3, out.stderr);
    const reason = (JSON.parse(out.stdout) as Summary).balls[0]?.reason ?? '';
    assert.match(
      reason,
      /^red first: the proof could not run at the ball's start, so its failure there is no red: Error: EROFS: read-only file system, open '[^']*\.vite-temp/,
    );
    assert.equal(launches(repo, 'build-a'), [], 'no builder ran');
    assert.not.ok(
      existsSync(join(repo, '.leap', 'crash', 'a', 'champion.json')),
      'no champion kept from a proof that could not run',
    );
    assert.equal(extraWorktrees(repo), []);
  },
);

runs(
  'red_first: a proof whose runner is missing is no red; one whose own test the ball creates is (bash test/x.sh, 127 at the start)',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'missing',
      balls: [
        ball('a', ['src/a.txt'], BASE, { red_first: true, proof: { argv: ['no-such-runner-x', 'src/a.txt'] } }),
        ball('b', ['src/b.txt', 'test/b.sh'], BASE, { red_first: true, proof: { argv: ['bash', 'test/b.sh'] } }),
      ],
    });
    const agents = writeAgents(dir, {
      a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
      b: {
        '*': {
          edits: [
            { path: 'src/b.txt', content: 'B\n' },
            { path: 'test/b.sh', content: 'grep -qx B src/b.txt\n' },
          ],
        },
      },
    });
    const out = await leapSlice(repo, ARGS(file, agents));
    const balls = (JSON.parse(out.stdout) as Summary).balls;
    const [a, b] = [balls.find((x) => x.id === 'a'), balls.find((x) => x.id === 'b')];
    assert.is(a?.receipt, 0, out.stderr);
    assert.match(
      a?.reason ?? '',
      /could not run at the ball's start, so its failure there is no red: command not found: "no-such-runner-x"/,
    );
    assert.equal(launches(repo, 'build-a'), []);
    assert.is(b?.receipt, 1, out.stderr);
    assert.is(readLeap<{ champion: { code: number } }>(repo, 'missing', 'b', 'round-1.json')?.champion.code, 127);
  },
);

runs(
  'a round whose proof crashed keeps the line that names the cause, not the last lines of its stack; the next round passes',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'why',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: proofOn('nearly\n') } })],
    });
    const agents = writeAgents(dir, {
      a: {
        '1': { edits: [{ path: 'src/a.txt', content: 'nearly\n' }] },
        '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] },
      },
    });
    const out = await leapSlice(repo, ARGS(file, agents));
    assert.is(out.code, 0, out.stderr);
    const round = readLeap<{ reason: string; receipt: number | null }>(repo, 'why', 'a', 'round-1.json');
    assert.is(round?.receipt, null);
    assert.is(
      round?.reason,
      `the proof could not run: ${EROFS}: at frame10 (node:internal/x:10:1) | at frame11 (node:internal/x:11:1)`,
    );
    // The champion at the start failed as a test fails: a red, its line kept too.
    assert.is(
      readLeap<{ champion: { code: number; note?: string } }>(repo, 'why', 'a', 'round-1.json')?.champion.note,
      undefined,
    );
  },
);

runs('a proof left watching (vitest --watch) is ended by the idle limit, named as such; the run goes on', async () => {
  const { repo, dir } = setupRepo(BASE);
  const watch = "console.log('Waiting for file changes...'); setInterval(() => {}, 1e6)";
  const file = writeSlice(dir, {
    id: 'watch',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: proofOn('nearly\n', watch) } })],
  });
  const agents = writeAgents(dir, {
    a: {
      '1': { edits: [{ path: 'src/a.txt', content: 'nearly\n' }] },
      '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] },
    },
  });
  const started = Date.now();
  const out = await leapSlice(repo, ARGS(file, agents), engineEnv({ VERI_IDLE_TIMEOUT: '1.5', VERI_TIMEOUT: '60' }));
  assert.is(out.code, 0, out.stderr);
  const reason = readLeap<{ reason: string }>(repo, 'watch', 'a', 'round-1.json')?.reason ?? '';
  assert.match(
    reason,
    /^the proof could not run: it made no progress \(no output, no CPU\) for 1\.5s and was ended: a test runner in watch mode waits for changes .*: Waiting for file changes\.\.\.$/,
    reason,
  );
  assert.ok(Date.now() - started < 45_000, 'not the time limit');
  assert.match(readFileSync(join(repo, '.tdd', 'proof-a-1.out'), 'utf8'), /^Waiting for file changes/);
});

runs(
  'the proof run again after the jury could not run (its runner gone): the ball is held with its candidate kept, not refused',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    // Unsandboxed, so the proof counts its runs in a file outside the checkout: the third (the re-proof) finds no runner.
    const count = join(dir, 'runs');
    const proof = `const fs=require('fs');const n=(fs.existsSync(${JSON.stringify(count)})?Number(fs.readFileSync(${JSON.stringify(count)},'utf8')):0)+1;fs.writeFileSync(${JSON.stringify(count)},String(n));if(n===3){console.error('sh: 1: vitest: not found');process.exit(127)}process.exit(fs.readFileSync('src/a.txt','utf8')==='A\\n'?0:1)`;
    const file = writeSlice(dir, {
      id: 'again',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: [process.execPath, '-e', proof] } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(repo, [...ARGS(file, agents), '--sandbox', 'off']);
    assert.is(out.code, 3, out.stderr);
    const reason = (JSON.parse(out.stdout) as Summary).balls[0]?.reason ?? '';
    assert.match(
      reason,
      /^the proof could not run again after the jury: a program it runs was not found \(sh: 1: vitest: not found\)/,
    );
    assert.match(readFileSync(join(repo, '.git', 'refs', 'heads', 'leap', 'again', 'a'), 'utf8'), /^[0-9a-f]{40}/);
  },
);

runs.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { ball, contentProof, extraWorktrees, leapSlice, setupRepo, writeAgents, writeSlice } from './engine-helpers.js';

// `leap slice status` and `clean` on the records a real `leap slice run` wrote: the seam between
// the engine, which writes `.leap/SLICE/`, and the definition side, which reads it.

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };

const seam = suite('status and clean after leap slice run');

seam.after.each(cleanupTempDirs);

seam(
  'a passed ball, a refused one and its blocked descendant, as status reads them; clean keeps the records',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'mixed',
      balls: [
        ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
        ball('b', ['src/b.txt'], BASE, { proof: { argv: contentProof({ 'src/b.txt': 'B\n' }) } }),
        ball('c', ['src/c.txt'], BASE, { deps: ['b'], proof: { argv: contentProof({ 'src/c.txt': 'C\n' }) } }),
      ],
    });
    const agents = writeAgents(dir, {
      a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } },
      // b also edits a file outside its scope: -1.
      b: {
        '*': {
          edits: [
            { path: 'src/b.txt', content: 'B\n' },
            { path: 'README.md', content: 'hijacked\n' },
          ],
        },
      },
      c: { '*': { edits: [{ path: 'src/c.txt', content: 'C\n' }] } },
    });
    const run = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(run.code, 1, run.stderr + run.stdout);

    const status = await leapSlice(repo, ['status', file, '--json']);
    assert.is(status.code, 0, status.stderr);
    const s = JSON.parse(status.stdout) as {
      engine: number | null;
      base: string;
      balls: {
        ball: string;
        state: string;
        receipt: number | null;
        rounds: number;
        candidate: string | null;
        after: string[];
      }[];
      unreadable: string[];
      record: string | null;
    };
    assert.equal(
      s.balls.map((b) => [b.ball, b.state, b.receipt]),
      [
        ['a', 'passed', 1],
        ['b', 'refused', -1],
        ['c', 'blocked', 0],
      ],
    );
    assert.equal(s.balls.find((b) => b.ball === 'c')?.after, ['b']);
    assert.match(s.balls.find((b) => b.ball === 'a')?.candidate ?? '', /^[0-9a-f]{64}$/);
    assert.equal([s.engine, s.record, s.unreadable], [null, null, []]);
    assert.is(s.base, git(repo, 'rev-parse', 'HEAD').trim());

    const text = await leapSlice(repo, ['status', file]);
    assert.match(
      text.stdout,
      /^slice mixed: no engine running, base [0-9a-f]{40}\n  a  passed {7}round 1  receipt 1  candidate [0-9a-f]{12}/,
    );
    assert.match(text.stdout, /\n  c  blocked {6}receipt 0  after b\n/);

    const clean = await leapSlice(repo, ['clean', file, '--json']);
    assert.is(clean.code, 0, clean.stderr);
    assert.equal(JSON.parse(clean.stdout).worktrees, []);
    assert.equal(git(repo, 'branch', '--list', 'leap/mixed/*').trim(), '');
    assert.equal(extraWorktrees(repo), []);
    assert.ok(existsSync(join(repo, '.leap', 'mixed', 'a', 'result.json')), 'the records stay');
    assert.equal(
      JSON.parse((await leapSlice(repo, ['status', file, '--json'])).stdout).balls.map(
        (b: { state: string }) => b.state,
      ),
      ['passed', 'refused', 'blocked'],
    );
  },
);

seam(
  'a ball held after four rounds: status shows the hold, its fourth round and its checkpoint; its descendant held after it',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const file = writeSlice(dir, {
      id: 'stuck',
      balls: [
        ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } }),
        ball('d', ['src/d.txt'], BASE, { deps: ['a'], proof: { argv: contentProof({ 'src/d.txt': 'D\n' }) } }),
      ],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'not quite\n' }] } } });
    const run = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(run.code, 3, run.stderr + run.stdout);
    const s = JSON.parse((await leapSlice(repo, ['status', file, '--json'])).stdout) as {
      balls: {
        ball: string;
        state: string;
        receipt: number | null;
        rounds: number;
        lastRound: { round: number } | null;
        checkpoint: string | null;
        after: string[];
      }[];
    };
    const [a, d] = s.balls;
    assert.equal(
      [a?.state, a?.receipt, a?.rounds, a?.lastRound?.round, a?.checkpoint],
      ['held', 0, 4, 4, '.leap/stuck/a/checkpoint.md'],
    );
    assert.ok(existsSync(join(repo, '.leap', 'stuck', 'a', 'checkpoint.md')));
    assert.equal([d?.state, d?.after], ['held', ['a']]);
    assert.equal(extraWorktrees(repo), []);
  },
);

seam.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { conveneJury } from '../src/index.js';
import { verifyEnv, writeAgents, writeScript } from './helpers.js';

const PASS = { verdict: 'pass', lens: 'defect', findings: [], reasoning: 'read the file and its test' };

// A repository with `files`, and two passing reviewer seats of families f1 and f2 in an environment of no issue.
function twoPassingSeats(files: Record<string, string>) {
  const repo = makeGitRepo({ files });
  const dir = makeTempDir();
  const agents = writeAgents(
    {
      'r-f1': { plugin: 'scripted', script: writeScript([{ answer: PASS }], 'f1', dir) },
      'r-f2': { plugin: 'scripted', script: writeScript([{ answer: PASS }], 'f2', dir) },
    },
    dir,
  );
  const env = verifyEnv({ VERI_AGENTS: agents });
  delete env.VERI_ISSUE;
  return { repo, env };
}

const fields = suite('conveneJury eventFields');
fields.after.each(cleanupTempDirs);

fields("every review event, each seat's and the jury's, carries the slice and ball it judges", async () => {
  const { repo, env } = twoPassingSeats({
    'src/a.js': 'export const a = 1;\n',
    'test/a.test.js': 'process.exit(0);\n',
  });
  const result = await conveneJury({
    builderFamily: 'anthropic',
    reviewers: ['r-f1', 'r-f2'],
    intent: 'a is one',
    criteria: 'a === 1',
    files: ['src/a.js'],
    tests: ['test/a.test.js'],
    cwd: repo,
    env,
    eventFields: { slice: 'split-parser', ball: 'lexer' },
  });
  assert.is(result.value, 1, result.reason);
  const reviews = readEvents(join(repo, '.tdd', 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'review');
  assert.is(reviews.length, 3, 'two seats and the jury');
  for (const review of reviews) assert.equal([review.slice, review.ball], ['split-parser', 'lexer']);
  assert.equal(result.seats.map((s) => s.leaf).sort(), [
    'review-' + result.candidate.slice(0, 8) + '-f1',
    'review-' + result.candidate.slice(0, 8) + '-f2',
  ]);
});

fields("leafKey names the seats review-KEY-FAMILY, as CONTRACT section 4 names a LEAP ball's reviewers", async () => {
  const { repo, env } = twoPassingSeats({ 'src/a.js': 'export const a = 1;\n' });
  const result = await conveneJury({
    builderFamily: 'anthropic',
    reviewers: ['r-f1', 'r-f2'],
    intent: 'a is one',
    criteria: 'a === 1',
    files: ['src/a.js'],
    cwd: repo,
    env,
    leafKey: 'lexer',
  });
  assert.equal(result.seats.map((s) => s.leaf).sort(), ['review-lexer-f1', 'review-lexer-f2']);
  assert.ok(existsSync(join(repo, '.tdd', 'review-lexer-f1.exit')));
});

fields.run();

// The worker's log read for a round's phases: lines that are not events are passed over, never thrown.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEvent } from '@leap/core';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { watchRoundPhases } from '../src/progress.js';

const test = suite('bullmq runner: round phases from the worker log');
test.after.each(cleanupTempDirs);

test('null, an array, a torn JSON line and an invalid launch are skipped; the valid events move the phase', () => {
  const context = { issue: null, step: null, skillCommit: null };
  const launch = (leaf: string) =>
    createEvent('launch', { leaf, actor: null, phase: null, attempt: null, pid: 1, cmd: [] }, context);
  const exit = (leaf: string) => createEvent('exit', { leaf, code: 0, status: 'exited', duration_ms: 1 }, context);
  const events = join(makeTempDir(), 'events.jsonl');
  const lines = [
    'null',
    '[1]',
    '{"event":"launch","leaf":',
    JSON.stringify({ ...launch('review-b-x'), pid: 'one' }),
    JSON.stringify(launch('build-b-1')),
    JSON.stringify(exit('build-b-1')),
    JSON.stringify(launch('review-b-google')),
  ];
  writeFileSync(events, `${lines.join('\n')}\n`);
  const seen: string[] = [];
  watchRoundPhases(events, 0, 'taken', (phase) => seen.push(phase)).stop();
  assert.equal(seen, ['building', 'proving', 'reviewing']);
});

test.run();

// runSuite: the project's test command as one supervised suite run, recorded as a `suite` event.
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeGitRepo, suite } from '@leap/test-utils';
import { runSuite } from '../src/index.js';

function suiteEvents(stateDir: string): Record<string, unknown>[] {
  return readFileSync(join(stateDir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.event === 'suite');
}

const purpose = suite('runSuite purpose');
purpose.after.each(cleanupTempDirs);

purpose('a canary run and a flaky re-run say so in their suite event; the others carry no purpose', async () => {
  const repo = makeGitRepo({ files: { '.gitignore': '.tdd/\n' } });
  const stateDir = join(repo, '.tdd');
  mkdirSync(stateDir);
  const base = { testCmd: 'true', env: { ...process.env, VERI_ISSUE: '3' }, stateDir, suiteLog: join(stateDir, 'suite.log') };
  assert.is(await runSuite({ ...base, phase: 'green' }, repo), 0);
  assert.is(await runSuite({ ...base, phase: 'green', purpose: 'canary' }, repo), 0);
  assert.is(await runSuite({ ...base, phase: 'green', purpose: 'rerun' }, repo), 0);
  assert.equal(
    suiteEvents(stateDir).map((e) => [e.phase, e.purpose, e.issue]),
    [
      ['green', undefined, 3],
      ['green', 'canary', 3],
      ['green', 'rerun', 3],
    ],
  );
});

purpose.run();

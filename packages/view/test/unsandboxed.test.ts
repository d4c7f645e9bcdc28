// An unsandboxed run is shown (CONTRACT section 13): leaves whose launch said `"sandbox": "off"` are counted by
// leap status and named on its screen, and leap report's summary says how many ran outside the sandbox.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupTempDirs, runCommand } from '@leap/test-utils';
import { reportMain } from '../src/report-cli.js';
import { statusMain } from '../src/status-cli.js';
import type { StatusData } from '../src/status-data.js';
import { captureIo, cleanEnv, repoWith } from './helpers.js';

const supervise = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'supervise',
  'dist',
  'bin',
  'leap-supervise.cjs',
);
const unsandboxed = suite('leap status and leap report: unsandboxed leaves');
unsandboxed.after.each(cleanupTempDirs);

unsandboxed(
  'two real leaves, one in the sandbox and one with it off: status counts and names the unsandboxed one, the report says 1 of 2',
  async () => {
    const repo = repoWith();
    const env = cleanEnv();
    const inside = await runCommand(process.execPath, [supervise, '--sandbox', 'writer', 'develop-red', 'true'], {
      cwd: repo,
      env,
    });
    assert.is(inside.code, 0, inside.stderr);
    const outside = await runCommand(process.execPath, [supervise, '--sandbox', 'off', 'verify-red', 'true'], {
      cwd: repo,
      env,
    });
    assert.is(outside.code, 0, outside.stderr);
    const launches = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; sandbox?: string })
      .filter((e) => e.event === 'launch');
    assert.equal(
      launches.map((e) => e.sandbox),
      ['bwrap', 'off'],
      'the supervisor recorded both',
    );

    const json = captureIo(repo, env);
    assert.is(await statusMain(['--json'], json.io), 0);
    const data = JSON.parse(json.out()) as StatusData;
    assert.equal(data.unsandboxed, { leaves: 1, last: 'verify-red' });
    const text = captureIo(repo, env);
    assert.is(await statusMain([], text.io), 0);
    assert.match(text.out(), /! 1 leaf run outside the sandbox \(--sandbox off\), the last verify-red/);

    const out = join(repo, 'report.html');
    const report = captureIo(repo, env);
    assert.is(await reportMain(['--out', out], report.io), 0, report.err());
    assert.match(readFileSync(out, 'utf8'), /<span class="meta">sandbox<\/span><b>1 of 2 leaves unsandboxed<\/b>/);
  },
);

unsandboxed('a log of sandboxed leaves only: no warning; the card says all of them', async () => {
  const repo = repoWith();
  const env = cleanEnv();
  assert.is(
    (await runCommand(process.execPath, [supervise, '--sandbox', 'reader', 'verify-green', 'true'], { cwd: repo, env }))
      .code,
    0,
  );
  const text = captureIo(repo, env);
  assert.is(await statusMain([], text.io), 0);
  assert.not.match(text.out(), /outside the sandbox/);
  const out = join(repo, 'report.html');
  assert.is(await reportMain(['--out', out], captureIo(repo, env).io), 0);
  assert.match(readFileSync(out, 'utf8'), /<b>all 1 leaves sandboxed<\/b>/);
});

unsandboxed.run();

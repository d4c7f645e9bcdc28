// A fall-over is shown (issue 21 §3): a real `leap tdd run` whose first developer's vendor runs dry, then
// leap status (text and --json) and leap report say which leaf, which agent, why, and who took it over.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { reportMain } from '../src/report-cli.js';
import { statusMain } from '../src/status-cli.js';
import type { StatusData } from '../src/status-data.js';
import { captureIo, cleanEnv, leapBin } from './helpers.js';

const fallovers = suite('leap status and leap report: fall-overs');
fallovers.after.each(cleanupTempDirs);

const HEAD =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { shout } from '../src/shout.js';\n\n";
// What a hostile CLI might say: a terminal escape and markup, which neither view may pass through.
const WORDS = 'API Error: 429 \u001b[31mrate limit\u001b[0m <script>alert(1)</script>';

fallovers(
  'the first developer ran dry and the second took the leaf: status lists it, the report has its row, escaped',
  async () => {
    const repo = makeGitRepo({
      files: {
        'package.json': `${JSON.stringify({ name: 'shout', private: true, type: 'module', scripts: { test: 'node --test test/' } })}\n`,
        'src/shout.js': 'export function shout(s) {\n  return s;\n}\n',
        'test/smoke.test.js': `${HEAD}test('shout is a function', () => assert.equal(typeof shout, 'function'));\n`,
        '.tdd/issues/1.md': '# Shout\n\n## Acceptance criteria\n\n- [ ] shout upper-cases its text\n',
      },
    });
    const dir = makeTempDir('leap-view-agents-');
    const script = (name: string, family: string, moves: object[]) =>
      writeFileSync(join(dir, `${name}.json`), JSON.stringify({ family, moves }));
    script('tired', 'alpha', [{ dry: 'rate-limit', stderr: `${WORDS}\n` }]);
    script('dev', 'beta', [
      {
        edits: [
          {
            path: 'test/shout.test.js',
            content: `${HEAD}test('upper-cases', () => assert.equal(shout('hi'), 'HI'));\n`,
          },
        ],
        answer: 'red',
      },
      {
        edits: [{ path: 'src/shout.js', content: 'export function shout(s) {\n  return s.toUpperCase();\n}\n' }],
        answer: 'green',
      },
      {
        edits: [{ path: 'src/shout.js', content: 'export const shout = (s) => s.toUpperCase();\n' }],
        answer: 'refactor',
      },
    ]);
    const pass = { answer: { verdict: 'PASS', reason: 'ok' } };
    script('ver', 'gamma', [pass, pass, pass]);
    const agents = join(dir, 'agents.json');
    const entry = (name: string) => ({ plugin: 'scripted', script: `${name}.json` });
    writeFileSync(
      agents,
      JSON.stringify({
        agents: { tired: entry('tired'), dev: entry('dev'), ver: entry('ver') },
        roles: { developer: ['tired', 'dev'], verifier: ['ver'] },
      }),
    );
    const plan = join(dir, 'plan.txt');
    writeFileSync(plan, 'Plan\nShout upper-cases (criterion 1)\n');
    const env = cleanEnv();
    const run = spawnSync(
      process.execPath,
      [leapBin(), 'tdd', 'run', '--issue', '1', '--agents', agents, '--plan', plan, '--test-cmd', 'node --test test/'],
      { cwd: repo, env, encoding: 'utf8' },
    );
    assert.is(run.status, 0, run.stdout + run.stderr);

    const json = captureIo(repo, env);
    assert.is(await statusMain(['--json'], json.io), 0);
    const data = JSON.parse(json.out()) as StatusData;
    assert.equal(
      data.fallovers.map((f) => [f.leaf, f.role, f.agent, f.cause, f.message, f.next, f.issue]),
      [['develop-red', 'developer', 'tired', 'rate-limit', WORDS, 'dev', 1]],
    );
    const text = captureIo(repo, env);
    assert.is(await statusMain([], text.io), 0);
    assert.match(text.out(), 'Fall-overs (a vendor ran dry)');
    assert.match(text.out(), /develop-red {2}developer tired rate-limit → dev {2}issue 1/);
    assert.not.match(text.out(), '\u001b[31m', 'no escape of the CLI reaches the terminal');

    const out = join(repo, 'report.html');
    const report = captureIo(repo, env);
    assert.is(await reportMain(['--out', out], report.io), 0, report.err());
    const html = readFileSync(out, 'utf8');
    assert.match(
      html,
      /<tr class="fallover-row">.*<td>fall-over<\/td><td>1<\/td>.*<b>rate-limit<\/b> \(developer tired → dev\)/,
    );
    assert.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;');
    assert.not.match(html, '<script>alert(1)</script>');
    assert.match(html, /<span class="meta">fall-overs<\/span><b>1<\/b>/);
  },
);

fallovers.run();

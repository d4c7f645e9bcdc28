// The one-step issue of the real-CLI `leap tdd run` tests (tdd.slow.test.ts, fallover.slow.test.ts): a project, its plan,
// and model servers whose scripts are picked per leaf by the prompt's phase.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeGitRepo, makeTempDir, startModelServer, type ModelServer } from '@leap/test-utils';

// A step title that is data: quotes, `$( )`, backticks and non-ASCII pass through every command byte for byte.
export const TITLE = 'sub(a, b) returns a - b: it\'s `$(id)` "exact" ✓';
export const SUB_TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sub } = require('../sub.js');\ntest('subtracts', () => assert.strictEqual(sub(5, 3), 2));\n";
const SUB = 'exports.sub = (a, b) => a - b;\n';
export const SUB_TIDY = '// Subtraction, the inverse of add.\nexports.sub = (a, b) => a - b;\n';

export function project(): string {
  return makeGitRepo({
    prefix: 'leap-real-tdd-',
    files: {
      'add.js': 'exports.add = (a, b) => a + b;\n',
      'test/add.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'package.json': '{"name": "sample", "private": true}\n',
      '.tdd/issues/1.md':
        '# Subtraction\n\nThe library subtracts too.\n\n## Acceptance criteria\n\n- [ ] sub(a, b) returns a - b\n',
    },
  });
}

export function planFile(): string {
  const file = join(makeTempDir('leap-real-tdd-plan-'), 'plan.txt');
  writeFileSync(file, `Plan\n${TITLE} (criterion 1)\n`);
  return file;
}

// What each leaf's model does, picked by the prompt: the developer's phases, then the verifier's.
export function developerServer(repo: string): Promise<ModelServer> {
  return startModelServer({
    conversations: [
      {
        when: '## Your phase: red',
        script: [
          { write: join(repo, 'test', 'sub.test.js'), content: SUB_TEST },
          { text: 'Wrote the failing test of sub.' },
        ],
      },
      {
        when: '## Your phase: green',
        script: [{ write: join(repo, 'sub.js'), content: SUB }, { text: 'Implemented sub.' }],
      },
      // Read before it is rewritten: Claude Code refuses to write over a file its session has not read.
      {
        when: '## Your phase: refactor',
        script: [
          { read: join(repo, 'sub.js') },
          { write: join(repo, 'sub.js'), content: SUB_TIDY },
          { text: 'Named what sub is.' },
        ],
      },
    ],
  });
}

export function verifierServer(): Promise<ModelServer> {
  const verdict = (reason: string) => [{ structured: { verdict: 'PASS', reason } }];
  return startModelServer({
    conversations: [
      { when: 'Phase: red', script: verdict('the new test fails only because sub is missing') },
      { when: 'Phase: green', script: verdict('sub subtracts; the test passes') },
      { when: 'Phase: refactor', script: verdict('a comment only; behaviour unchanged') },
    ],
  });
}

// The project the real agents work on: a small Node package with one passing test, in a temp git repository.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeGitRepo, makeTempDir } from '@leap/test-utils';
import type { ModelServer, ModelTurn } from '@leap/test-utils';

/** Marks the source file, so a request carrying it proves the agent read the file through its tool. */
export const SOURCE_MARK = 'leap-real-agents-source-7f3a';

export const TEST_CMD = 'node --test test/';

export function makeProject(): string {
  return makeGitRepo({
    prefix: 'leap-real-agents-repo-',
    files: {
      'add.js': `// ${SOURCE_MARK}\nexports.add = (a, b) => a + b;\n`,
      'test/add.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'package.json': '{"name": "sample", "private": true}\n',
    },
  });
}

/** A behaviour spec for `leap-verify --spec`. */
export function specFile(text = 'add(a, b) returns the sum of two numbers.\n'): string {
  const file = join(makeTempDir('leap-real-agents-spec-'), 'spec.md');
  writeFileSync(file, text);
  return file;
}

/** The events a run appended to the state folder's `events.jsonl` (a repository's `.tdd`), parsed. */
export function readEvents(stateDir: string): Record<string, any>[] {
  return readFileSync(join(stateDir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Whether some request of the conversation carried `text` back to the model (a tool's result). */
export function sentBack(server: ModelServer, text: string): boolean {
  return server.requests.some((r) => r.turn !== null && r.turn > 0 && JSON.stringify(r.body).includes(text));
}

/** Bytes a writer's model writes: quotes, `$( )`, backticks and non-ASCII, which must land byte for byte. */
export const HOSTILE_LINE = 'it\'s $(id) `date` "quoted" 🦀\n';

/** A writer's turns: write sub.js (with HOSTILE_LINE), read add.js, run a command on what it wrote, answer. */
export function writerTurns(repo: string, answer: string): ModelTurn[] {
  return [
    { write: join(repo, 'sub.js'), content: `exports.sub = (a, b) => a - b; // ${HOSTILE_LINE}` },
    { read: join(repo, 'add.js') },
    { run: "node -e \"require('fs').writeFileSync('ran.txt', String(require('./sub.js').sub(5, 3)))\"" },
    { text: answer },
  ];
}

/** A read-only role's turns: its model asks to write a file and to run a command that writes one, then answers. */
export function readerTurns(repo: string, answer: string): ModelTurn[] {
  return [
    { write: join(repo, 'evil.txt'), content: 'written by a read-only role' },
    { run: `echo evil > ${join(repo, 'evil2.txt')}` },
    { text: answer },
  ];
}

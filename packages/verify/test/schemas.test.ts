import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSchemaFile } from '@leap/core/schemas';
import { verifyJsonSchemas } from '../src/schemas/answer-schemas.js';
import { answerProblem, loadVerifySchema, warmUpSchema } from '../src/index.js';

const drift = suite('verifyJsonSchemas');

drift('the committed schemas are exactly what the zod schemas generate (run npm run schemas)', () => {
  for (const [name, schema] of Object.entries(verifyJsonSchemas())) {
    const committed = readFileSync(join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'schemas', name), 'utf8');
    assert.fixture(committed, renderSchemaFile(schema), `${name} has drifted from the zod schema`);
  }
});

drift.run();

// ---

const load = suite('loadVerifySchema');

load('reads a published schema through the package manifest', () => {
  assert.is(loadVerifySchema('verdict.schema.json').$id, 'https://leap.dev/schemas/verdict.schema.json');
  assert.is(loadVerifySchema('review.schema.json').$id, 'https://leap.dev/schemas/review.schema.json');
  assert.throws(() => loadVerifySchema('nope.json'), /ENOENT/);
});

load.run();

// ---

const problem = suite('answerProblem');

problem('null for a valid verdict; the first problem, naming the source, otherwise', async () => {
  assert.is(await answerProblem('verdict.schema.json', { verdict: 'PASS', reason: 'fine' }, 'x'), null);
  assert.is(await answerProblem('verdict.schema.json', { verdict: 'REJECT', reason: 'no' }, 'x'), null);
  const cases: unknown[] = [{ verdict: 'pass', reason: 'r' }, { verdict: 'PASS' }, { verdict: 'PASS', reason: '' }, { verdict: 'PASS', reason: 'r', extra: 1 }, 'PASS', null, []];
  for (const data of cases) assert.match(String(await answerProblem('verdict.schema.json', data, "claude's answer")), /^claude's answer: does not match https:\/\/leap\.dev\/schemas\/verdict\.schema\.json/);
});

problem('juror verdicts: findings must carry a severity', async () => {
  const ok = { verdict: 'pass', lens: 'defect', findings: ['[minor] a.js:1 naming'], reasoning: 'checked a.js' };
  assert.is(await answerProblem('review.schema.json', ok, 'x'), null);
  assert.match(String(await answerProblem('review.schema.json', { ...ok, findings: ['a.js:1 no severity'] }, 'x')), /\/findings\/0 must match pattern/);
  assert.match(String(await answerProblem('review.schema.json', { ...ok, findings: [{ severity: 'minor' }] }, 'x')), /\/findings\/0 must be string/);
});

problem.run();

// ---

const warm = suite('warmUpSchema');

warm('compiles a published schema ahead of use; a schema that is not published is an error', async () => {
  await warmUpSchema('review.schema.json');
  assert.is(await answerProblem('review.schema.json', { verdict: 'pass', lens: 'defect', findings: [], reasoning: 'ok' }, 'r'), null);
  await warmUpSchema('no-such.schema.json').then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /no-such\.schema\.json/));
});

warm.run();

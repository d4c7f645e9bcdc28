import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileJsonSchema, renderSchemaFile } from '@leap/core/schemas';
import { renderAnswerValidators, verifyJsonSchemas } from '../src/schemas/answer-schemas.js';
import { answerProblem, loadVerifySchema } from '../src/index.js';

const drift = suite('verifyJsonSchemas');

drift('the schemas the build wrote are exactly what the zod schemas generate now (npm run generate)', () => {
  for (const [name, schema] of Object.entries(verifyJsonSchemas())) {
    const built = readFileSync(join(import.meta.dirname, '..', 'schemas', name), 'utf8');
    assert.fixture(built, renderSchemaFile(schema), `${name} has drifted from the zod schema`);
  }
});

drift(
  'the validators the build wrote are exactly what ajv generates from those schemas now (npm run generate)',
  async () => {
    const built = readFileSync(
      join(import.meta.dirname, '..', 'src', 'schemas', 'answer-validators.generated.ts'),
      'utf8',
    );
    assert.fixture(
      built,
      await renderAnswerValidators(),
      'answer-validators.generated.ts has drifted from the schemas',
    );
  },
);

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

problem('null for a valid verdict; the first problem, naming the source, otherwise', () => {
  assert.is(answerProblem('verdict.schema.json', { verdict: 'PASS', reason: 'fine' }, 'x'), null);
  assert.is(answerProblem('verdict.schema.json', { verdict: 'REJECT', reason: 'no' }, 'x'), null);
  const cases: unknown[] = [
    { verdict: 'pass', reason: 'r' },
    { verdict: 'PASS' },
    { verdict: 'PASS', reason: '' },
    { verdict: 'PASS', reason: 'r', extra: 1 },
    'PASS',
    null,
    [],
  ];
  for (const data of cases)
    assert.match(
      String(answerProblem('verdict.schema.json', data, "claude's answer")),
      /^claude's answer: does not match https:\/\/leap\.dev\/schemas\/verdict\.schema\.json/,
    );
});

problem('juror verdicts: findings must carry a severity', () => {
  const ok = { verdict: 'pass', lens: 'defect', findings: ['[minor] a.js:1 naming'], reasoning: 'checked a.js' };
  assert.is(answerProblem('review.schema.json', ok, 'x'), null);
  assert.match(
    String(answerProblem('review.schema.json', { ...ok, findings: ['a.js:1 no severity'] }, 'x')),
    /\/findings\/0 must match pattern/,
  );
  assert.match(
    String(answerProblem('review.schema.json', { ...ok, findings: [{ severity: 'minor' }] }, 'x')),
    /\/findings\/0 must be string/,
  );
});

problem('agrees with ajv compiling the published schema at run time, answer by answer', async () => {
  const answers: unknown[] = [
    { verdict: 'PASS', reason: 'ok' },
    { verdict: 'REJECT', reason: '😀' },
    { verdict: 'PASS', reason: '' },
    { verdict: 'pass', reason: 'r' },
    { verdict: 'PASS', reason: 'r', x: 1 },
    { verdict: 'PASS', reason: 7 },
    {},
    [],
    'PASS',
    0,
    null,
    { verdict: 'pass', lens: 'defect', findings: [], reasoning: '' },
    { verdict: 'refuse', lens: 'ڤ', findings: ['[blocker] a:1 x'], reasoning: 'r' },
    { verdict: 'pass', lens: '', findings: [], reasoning: 'r' },
    { verdict: 'pass', lens: 'l', findings: ['[note] a:1 x'], reasoning: 'r' },
    { verdict: 'pass', lens: 'l', findings: '[minor] a:1 x', reasoning: 'r' },
    { verdict: 'maybe', lens: 'l', findings: [], reasoning: 'r' },
  ];
  for (const name of ['verdict.schema.json', 'review.schema.json'] as const) {
    const runtime = await compileJsonSchema(loadVerifySchema(name));
    for (const answer of answers)
      assert.is(answerProblem(name, answer, 's') === null, runtime(answer), `${name}: ${JSON.stringify(answer)}`);
  }
});

problem.run();

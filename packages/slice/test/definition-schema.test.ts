import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileJsonSchema, renderSchemaFile } from '@leap/core/schemas';
import { renderSliceValidators, sliceJsonSchemas } from '../src/definition/json-schemas.js';
import { schemaProblems } from '../src/definition/schema-problems.js';
import { sliceSchema } from '../src/definition/slice-schema.js';

const pkg = join(fileURLToPath(new URL('.', import.meta.url)), '..');

const drift = suite('sliceJsonSchemas and renderSliceValidators');

drift('the schema the build wrote is exactly what the zod schema generates now (npm run generate)', () => {
  for (const [name, schema] of Object.entries(sliceJsonSchemas())) {
    assert.fixture(
      readFileSync(join(pkg, 'schemas', name), 'utf8'),
      renderSchemaFile(schema),
      `${name} has drifted from slice-schema.ts`,
    );
  }
});

drift(
  'the validators the build wrote are exactly what ajv generates from the schemas now (npm run generate)',
  async () => {
    const built = readFileSync(join(pkg, 'src', 'definition', 'slice-validators.generated.ts'), 'utf8');
    assert.fixture(built, await renderSliceValidators(), 'slice-validators.generated.ts has drifted from the schemas');
  },
);

drift(
  'the validators build no object at each field they check (a schema part written where it is used is built at every call)',
  () => {
    const code = readFileSync(join(pkg, 'src', 'definition', 'slice-validators.generated.ts'), 'utf8');
    // A ball has more than eight properties, where ajv tests an unknown field against the schema's properties object.
    assert.ok(code.includes('key0 === "red_first"'), "the ball's unknown-field test names each property");
    assert.not.ok(/\.call\(\{/.test(code), 'an object literal is built at a call');
    assert.not.ok(/hasOwnProperty/.test(code), "no hasOwnProperty test is left against a schema's properties");
  },
);

drift.run();

// ---

const agree = suite('schemaProblems');

const SHA = 'b'.repeat(64);
const ball = {
  id: 'a',
  goal: 'g',
  spec: '',
  scope: [{ path: 'a.js', sha256: SHA }],
  proof: { argv: ['node'] },
  rollback: '',
  deps: [],
};
const base = { id: 's', base: 'HEAD', spine: 'integrator', balls: [ball] };

// Valid and invalid slices, each one change from a valid one, at every level of the file.
const CASES: unknown[] = [
  base,
  { ...base, $schema: 'x' },
  { ...base, $schema: 1 },
  { ...base, id: 'S' },
  { ...base, base: '' },
  { ...base, spine: 3 },
  { ...base, balls: [] },
  { ...base, balls: {} },
  { ...base, x: 1 },
  [],
  null,
  'slice',
  7,
  {},
  { ...base, balls: [1] },
  { ...base, balls: [ball, ball] },
  { ...base, balls: [{ ...ball, id: '' }] },
  { ...base, balls: [{ ...ball, goal: '' }] },
  { ...base, balls: [{ ...ball, spec: 1 }] },
  { ...base, balls: [{ ...ball, rollback: null }] },
  { ...base, balls: [{ ...ball, deps: [1] }] },
  { ...base, balls: [{ ...ball, deps: ['x'] }] },
  { ...base, balls: [{ ...ball, scope: [] }] },
  { ...base, balls: [{ ...ball, scope: 'a.js' }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: null }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a' }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: SHA.toUpperCase() }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: null, lines: [[1, 2]] }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: null, lines: [[1.5, 2]] }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: null, lines: [[1, 2, 3]] }] }] },
  { ...base, balls: [{ ...ball, scope: [{ path: 'a', sha256: null, symbols: ['f', 'g'] }] }] },
  { ...base, balls: [{ ...ball, proof: { argv: [] } }] },
  { ...base, balls: [{ ...ball, proof: { argv: ['a', 2] } }] },
  { ...base, balls: [{ ...ball, proof: { argv: ['a'], metric: [] } }] },
  { ...base, balls: [{ ...ball, proof: { argv: ['a'], metric: [{ field: 'ms', better: 'lower' }] } }] },
  { ...base, balls: [{ ...ball, proof: { argv: ['a'], metric: [{ field: '', better: 'lower' }] } }] },
  { ...base, balls: [{ ...ball, proof: { argv: ['a'], metric: [{ field: 'ms' }] } }] },
  { ...base, balls: [{ ...ball, proof: 'npm test' }] },
  { ...base, balls: [{ ...ball, proof: undefined }] },
  { ...base, balls: [{ ...ball, extra: 1 }] },
  { ...base, balls: [{ ...ball, id: 'x'.repeat(64) }] },
  { ...base, balls: [{ ...ball, id: 'é' }] },
  { ...base, balls: [{ ...ball, goal: '😀' }] },
];

agree('the generated parts accept exactly what ajv compiling the published schema accepts, and zod too', async () => {
  const runtime = await compileJsonSchema(sliceJsonSchemas()['slice.schema.json'] as Record<string, unknown>);
  for (const value of CASES) {
    const copy = JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
    const ours = schemaProblems(copy).length === 0;
    assert.is(ours, runtime(copy), `ajv: ${JSON.stringify(value)}`);
    assert.is(ours, sliceSchema.safeParse(copy).success, `zod: ${JSON.stringify(value)}`);
  }
});

// Every field of a full slice, replaced in turn by values of every JSON type.
function mutations(): unknown[] {
  const full = {
    $schema: 'x',
    id: 's',
    base: 'HEAD',
    spine: 'integrator',
    balls: [
      {
        ...ball,
        scope: [{ path: 'a', sha256: SHA, symbols: ['f'], lines: [[1, 2]] }],
        proof: { argv: ['a'], metric: [{ field: 'ms', better: 'lower' }] },
      },
    ],
  };
  const values: unknown[] = [
    null,
    true,
    0,
    -1,
    1.5,
    2 ** 53,
    'x',
    '',
    'Bad',
    SHA,
    [],
    ['x'],
    [1],
    [[1, 2]],
    [[2, 1, 0]],
    [{}],
    {},
    { field: 'ms', better: 'higher' },
  ];
  const out: unknown[] = [];
  const walk = (node: unknown, set: (v: unknown) => unknown): void => {
    for (const v of values) out.push(set(v));
    if (Array.isArray(node))
      for (const [i, child] of node.entries()) walk(child, (v) => set(node.map((c, j) => (j === i ? v : c))));
    else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node))
        walk((node as Record<string, unknown>)[key], (v) => set({ ...(node as object), [key]: v }));
      out.push(set({ ...(node as object), extra: 1 }));
    }
  };
  walk(full, (v) => v);
  return out;
}

agree('every field replaced by every kind of value: the parts, ajv and zod agree', async () => {
  const runtime = await compileJsonSchema(sliceJsonSchemas()['slice.schema.json'] as Record<string, unknown>);
  const cases = mutations();
  assert.ok(cases.length > 500, `${cases.length} cases`);
  let invalid = 0;
  for (const value of cases) {
    const problems = schemaProblems(value);
    assert.is(problems.length === 0, runtime(value), `ajv: ${JSON.stringify(value)}`);
    assert.is(problems.length === 0, sliceSchema.safeParse(value).success, `zod: ${JSON.stringify(value)}`);
    if (problems.length > 0) invalid++;
    for (const p of problems) assert.ok(p.message.length > 0 && p.rule === 'schema', JSON.stringify(p));
  }
  assert.ok(invalid > cases.length / 2, `${invalid} of ${cases.length} invalid`);
});

agree.run();

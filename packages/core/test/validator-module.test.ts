import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { compileJsonSchema, renderValidatorModule } from '../src/schemas.js';

type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

// Write the rendered module to a file and import it, as a package's build would.
async function loadModule(source: string): Promise<Record<string, Validator>> {
  const file = join(makeTempDir('leap-validators-'), 'validators.mjs');
  writeFileSync(file, source);
  return import(pathToFileURL(file).href) as Promise<Record<string, Validator>>;
}

const render = suite('renderValidatorModule');

render.after(cleanupTempDirs);

render('one module exporting a validator per schema, checking exactly what ajv checks at run time', async () => {
  const point = {
    $id: 'https://example.test/point.json',
    type: 'object',
    properties: { x: { type: 'integer' }, y: { type: 'integer' } },
    required: ['x', 'y'],
    additionalProperties: false,
  };
  const name = { $id: 'https://example.test/name.json', type: 'string', minLength: 2, pattern: '^\\S' };
  const source = await renderValidatorModule(
    [
      { exportName: 'validatePoint', schema: point },
      { exportName: 'validateName', schema: name },
    ],
    '// a header\n',
  );
  assert.ok(source.startsWith('// a header\n// @ts-nocheck\n'), 'the header comes first, then the type-check opt-out');
  assert.not.match(source, /require\(/, 'nothing is loaded at run time');
  const module = await loadModule(source);
  const cases: Array<[Validator | undefined, Record<string, unknown>, unknown[]]> = [
    [module.validatePoint, point, [{ x: 1, y: 2 }, { x: 1 }, { x: 1, y: 2, z: 3 }, { x: 1.5, y: 2 }, [], null, 'p']],
    // minLength counts code points: one emoji is one (two UTF-16 units), a lone surrogate is one too.
    [module.validateName, name, ['ab', 'a', '😀', 'a😀', '\uD800', 'a\uD800', ' ab', '', 12]],
  ];
  for (const [validate, schema, data] of cases) {
    assert.type(validate, 'function');
    const runtime = await compileJsonSchema(schema);
    for (const d of data)
      assert.is((validate as Validator)(d), runtime(d), `${String(schema.$id)}: ${JSON.stringify(d)}`);
  }
  assert.is(module.validateName?.('😀'), false);
  assert.is(module.validateName?.('a😀'), true);
  module.validatePoint?.({ x: 1 });
  assert.equal(module.validatePoint?.errors?.[0]?.message, "must have required property 'y'");
});

render('a schema without an $id, or one whose code needs a runtime module, is refused', async () => {
  await renderValidatorModule([{ exportName: 'v', schema: { type: 'string' } }], '').then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /Expected the schema of v to have a string \$id, got undefined/),
  );
  // uniqueItems over objects needs ajv's deep-equal at run time.
  await renderValidatorModule(
    [{ exportName: 'v', schema: { $id: 'https://example.test/set.json', type: 'array', uniqueItems: true } }],
    '',
  ).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /needs ajv\/dist\/runtime\/equal at run time/),
  );
});

render.run();

// Validators ajv compiles at build (not committed): no ajv loaded or compiled at run time (about 100 ms).
import { AJV_OPTIONS } from './validate-json.js';

export type ValidatorExport = { exportName: string; schema: Record<string, unknown> };

const RUNTIME_HELPER = /const (\w+) = require\("ajv\/dist\/runtime\/ucs2length"\)\.default;/g;

// ajv's `minLength` counts code points (a surrogate pair is one), as string iteration does.
const COUNT_CODE_POINTS = `function countCodePoints(text) {
  let count = 0;
  for (const _ of text) count++;
  return count;
}`;

/** `header`, then ajv's standalone validators; a schema needing an ajv runtime helper not defined here fails here. */
export async function renderValidatorModule(validators: readonly ValidatorExport[], header: string): Promise<string> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const standalone = await import('ajv/dist/standalone/index.js');
  const standaloneCode =
    (standalone.default as unknown as { default?: typeof standalone.default }).default ?? standalone.default;
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true, esm: true, lines: true } });
  const refs: Record<string, string> = {};
  for (const { exportName, schema } of validators) {
    if (typeof schema.$id !== 'string')
      throw new TypeError(
        `Expected the schema of ${exportName} to have a string $id, got ${JSON.stringify(schema.$id)}`,
      );
    ajv.addSchema(schema);
    refs[exportName] = schema.$id;
  }
  const code = standaloneCode(ajv, refs)
    .replace(/^"use strict";\n?/, '')
    .replace(RUNTIME_HELPER, 'const $1 = countCodePoints;');
  const needs = /require\("([^"]+)"\)/.exec(code);
  if (needs !== null)
    throw new Error(
      `ajv's standalone code for ${Object.keys(refs).join(', ')} needs ${needs[1]} at run time; ` +
        'renderValidatorModule provides only ucs2length',
    );
  return `${header.trimEnd()}\n// @ts-nocheck\n${COUNT_CODE_POINTS}\n${code.trimEnd()}\n`;
}

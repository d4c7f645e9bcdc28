// The slice JSON Schema and its ajv validators (slice-validators.generated.ts): build time only, never at run time.
import { z } from 'zod';
import { collapseNullable, renderValidatorModule, toPublishedSchema } from '@leap/core/schemas';
import { ballSchema, sliceSchema } from './slice-schema.js';

const BASE = 'https://leap.dev/schemas';

// The schema as two validators, the slice's fields and its balls: together they check what it checks (drift test).
const sliceShell = sliceSchema.extend({ balls: z.array(z.unknown()).min(1) });

function publish(schema: z.ZodType, id: string, title: string): Record<string, unknown> {
  return collapseNullable(toPublishedSchema(schema, id, title));
}

export function sliceJsonSchemas(): Record<string, Record<string, unknown>> {
  return { 'slice.schema.json': publish(sliceSchema, `${BASE}/slice.schema.json`, 'LEAP slice') };
}

// Each export is typed: inferring it from ajv's code, tsc follows the longest validator deeper than its stack allows.
const TYPED_EXPORT = /^export const (\w+) = (validate\d+);$/gm;
const VALIDATOR_TYPE =
  '((data: unknown) => boolean) & ' +
  '{ errors?: { instancePath: string; keyword: string; params: Record<string, unknown> }[] | null }';

// Only instancePath, keyword and params of an error are read: schemaPath and message go.
const SCHEMA_PATH = /schemaPath:"[^"]*",/g;
const MESSAGE = /,message:.*\}\];$/gm;
// `^[\s\S]` (non-empty) as a length check: the same strings, without a regex call four or more times a ball.
const NON_EMPTY_REGEXP = /^const (pattern\d+) = new RegExp\("\^\[\\\\s\\\\S\]", "u"\);\n/m;

// A validator stopping at its first problem keeps its error count 0: each `_errsN` snapshot and its tests go.
const ERROR_SNAPSHOT = /^const _errs\d+ = errors;\n/gm;
const IF_NO_NEW_ERROR = /^if\((?:errors === _errs\d+|_errs\d+ === errors)\)\{$/gm;
const VALID_IF_NO_NEW_ERROR = /^var (valid\d+) = _errs\d+ === errors;$/gm;

function withoutErrorCount(code: string): string {
  // Only a validator that counts no error may lose the count: with allErrors, ajv writes errors++.
  if (/(?<![.\w])errors\s*(?:\+\+|\+=|=[^=])/.test(code.replace(/^let errors = 0;$/gm, '')))
    throw new Error('renderSliceValidators: a validator counts its errors (allErrors?): the error count cannot go');
  const out = code
    .replace(ERROR_SNAPSHOT, '')
    .replace(IF_NO_NEW_ERROR, '{')
    .replace(VALID_IF_NO_NEW_ERROR, 'var $1 = true;');
  if (out.includes('_errs'))
    throw new Error('renderSliceValidators: an error-count snapshot is still used after its tests went');
  return out;
}

// The sixty failure sites set their error and return through one helper: less code for every start to parse.
const ERROR_SITE =
  /^(validate\d+)\.errors = \[\{instancePath(?::(.*?))?,keyword:("\w+"),params:(\{.*\})\}\];\nreturn false;$/gm;
const FAIL_WITH =
  'function failWith(validate, instancePath, keyword, params) {\n' +
  '  validate.errors = [{ instancePath, keyword, params }];\n  return false;\n}\n';

function withFailWith(code: string): string {
  if (code.includes('failWith')) throw new Error("renderSliceValidators: ajv's code already names failWith");
  const out = code.replace(
    ERROR_SITE,
    (_, validate: string, path: string | undefined, keyword: string, params: string) =>
      `return failWith(${validate}, ${path ?? 'instancePath'}, ${keyword}, ${params});`,
  );
  if (/\.errors = \[/.test(out))
    throw new Error('renderSliceValidators: an error is set in a form failWith does not take');
  const at = out.indexOf('\nexport const ');
  return `${out.slice(0, at + 1)}${FAIL_WITH}${out.slice(at + 1)}`;
}

// ajv keeps each schema as a literal built at every start for two errors quoting it (type list, enum): inlined instead.
const SCHEMA_CONSTANT = /^const (schema\d+) = (\{.*\});\n/gm;

// Past eight properties ajv builds `schemaN.properties` for every field tested: one comparison per name instead.
const OWN_PROPERTY_CONST = /^const (func\d+) = Object\.prototype\.hasOwnProperty;\n/m;

function withoutSchemaConstants(code: string): string {
  let out = code;
  const own = OWN_PROPERTY_CONST.exec(code);
  for (const [line, name, json] of code.matchAll(SCHEMA_CONSTANT)) {
    const schema = JSON.parse(json as string) as unknown;
    const part = (path: string): unknown => {
      let at = schema;
      for (const key of path.slice(1).split('.')) at = (at as Record<string, unknown> | undefined)?.[key];
      if (at === undefined) throw new Error(`renderSliceValidators: ${name}${path} is not in the schema`);
      return at;
    };
    if (own !== null) {
      out = out.replace(
        new RegExp(`\\b${own[1]}\\.call\\(${name}((?:\\.[$\\w]+)+), (\\w+)\\)`, 'g'),
        (_, path: string, key: string) => {
          const names = Object.keys(part(path) as Record<string, unknown>);
          return `(${names.map((n) => `${key} === ${JSON.stringify(n)}`).join(' || ')})`;
        },
      );
    }
    out = out.replace(new RegExp(`\\b${name}((?:\\.[$\\w]+)+)`, 'g'), (_, path: string) => JSON.stringify(part(path)));
    if (new RegExp(`\\b${name}\\b`).test(out.replace(line, '')))
      throw new Error(`renderSliceValidators: ${name} is still used whole`);
    out = out.replace(line, '');
  }
  if (own !== null && !new RegExp(`\\b${own[1]}\\b`).test(out.replace(own[0], ''))) out = out.replace(own[0], '');
  if (/\.call\(\{/.test(out))
    throw new Error('renderSliceValidators: an object literal is still built at a call in a validator');
  return out;
}

// `evaluated` serves unevaluatedProperties and dynamic references, which these schemas lack: its reads and resets go.
const EVALUATED_RESET = new RegExp(
  /^const evaluated0 = validate\d+\.evaluated;\n/.source +
    /if\(evaluated0\.dynamicProps\)\{\nevaluated0\.props = undefined;\n\}\n/.source +
    /if\(evaluated0\.dynamicItems\)\{\nevaluated0\.items = undefined;\n\}\n/.source,
  'gm',
);
const EVALUATED_STATIC =
  /^validate\d+\.evaluated = \{(?:"props":true,|"items":true,)?"dynamicProps":false,"dynamicItems":false\};\n/gm;

function withoutEvaluated(code: string): string {
  const out = code.replace(EVALUATED_RESET, '').replace(EVALUATED_STATIC, '');
  if (out.includes('evaluated')) throw new Error('renderSliceValidators: a validator still reads what it evaluated');
  return out;
}

function leaner(code: string): string {
  let out = withoutEvaluated(
    withoutSchemaConstants(withFailWith(withoutErrorCount(code.replace(SCHEMA_PATH, '').replace(MESSAGE, '}];')))),
  );
  const nonEmpty = NON_EMPTY_REGEXP.exec(out);
  if (nonEmpty !== null) {
    const name = nonEmpty[1] as string;
    out = out.replace(nonEmpty[0], '').replace(new RegExp(`!${name}\\.test\\((\\w+)\\)`, 'g'), '$1.length === 0');
    if (out.includes(name))
      throw new Error(`renderSliceValidators: ${name} (^[\\s\\S]) is still used after its tests became length checks`);
  }
  return out;
}

export async function renderSliceValidators(): Promise<string> {
  const balls = publish(z.array(ballSchema), `${BASE}/parts/balls.schema.json`, 'LEAP balls');
  const shell = publish(sliceShell, `${BASE}/parts/slice-shell.schema.json`, 'LEAP slice, balls open');
  const code = await renderValidatorModule(
    [
      { exportName: 'validateBalls', schema: balls },
      { exportName: 'validateSliceShell', schema: shell },
    ],
    [
      '// Generated by the build (`npm run generate -w @leap/slice`) from slice-schema.ts; not committed: do not edit.',
      '// ajv compiled these validators (its standalone code), so validating a slice loads neither zod nor ajv.',
      '// test/definition-schema.test.ts fails when this file drifts from the schemas.',
    ].join('\n'),
  );
  return leaner(code).replace(TYPED_EXPORT, `export const $1: ${VALIDATOR_TYPE} = $2;`);
}

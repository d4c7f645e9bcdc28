import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSchemaFile } from '@leap/core/schemas';
import { runnerJsonSchemas } from '../src/job-schema.js';
import { here } from './helpers.js';

const drift = suite('runnerJsonSchemas');

drift('the schemas the build wrote are exactly what the zod schemas generate now (npm run generate)', async () => {
  const schemas = await runnerJsonSchemas();
  assert.equal(Object.keys(schemas).sort(), ['round-job.schema.json', 'round-result.schema.json']);
  for (const [name, schema] of Object.entries(schemas)) {
    assert.fixture(
      readFileSync(join(here, '..', 'schemas', name), 'utf8'),
      renderSchemaFile(schema),
      `${name} has drifted from job-schema.ts`,
    );
  }
  // The job's schema admits no agents file, environment or remote URL.
  const job = schemas['round-job.schema.json'] as {
    additionalProperties: boolean;
    properties: Record<string, { properties?: Record<string, unknown>; additionalProperties?: boolean }>;
  };
  assert.is(job.additionalProperties, false);
  assert.is(job.properties.request?.additionalProperties, false);
  for (const key of ['agents', 'agentsFile', 'env'])
    assert.not.ok(key in (job.properties.request?.properties ?? {}) || key in job.properties, key);
});

drift.run();

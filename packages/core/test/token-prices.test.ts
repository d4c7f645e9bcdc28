import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { estimateCost } from '../src/index.js';

const usage = (input: number | null, output: number | null, cost: number | null = null) => ({
  model: 'm',
  input_tokens: input,
  output_tokens: output,
  cost_usd: cost,
});

test('estimateCost: tokens at the prices per million, marked estimated; a reported cost, missing tokens or no prices leave the usage as it is', () => {
  assert.equal(estimateCost(usage(2_000_000, 500_000), { input: 1.25, output: 10 }), {
    ...usage(2_000_000, 500_000),
    cost_usd: 7.5,
    cost_estimated: true,
  });
  assert.equal(estimateCost(usage(0, 0), { input: 3, output: 15 }), {
    ...usage(0, 0),
    cost_usd: 0,
    cost_estimated: true,
  });
  assert.equal(
    estimateCost(usage(10, 10, 0.01), { input: 1, output: 1 }),
    usage(10, 10, 0.01),
    "the CLI's own figure wins",
  );
  assert.equal(estimateCost(usage(null, 10), { input: 1, output: 1 }), usage(null, 10));
  assert.equal(estimateCost(usage(10, null), { input: 1, output: 1 }), usage(10, null));
  assert.equal(estimateCost(usage(10, 10), undefined), usage(10, 10));
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isoTimestamp } from '../src/events/event-log.js';
import { prng } from '@leap/test-utils';

test('isoTimestamp: the same text as Date#toISOString, across leap days, centuries and millisecond edges', () => {
  const fixed = [
    0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 253_402_300_799_999, -1,
    -86_400_001, -62_135_596_800_000,
  ];
  for (const ms of fixed) assert.is(isoTimestamp(ms), new Date(ms).toISOString(), String(ms));
  const random = prng(20261129);
  for (let i = 0; i < 20_000; i++) {
    const ms = Math.floor(random() * 253_402_300_800_000);
    assert.is(isoTimestamp(ms), new Date(ms).toISOString(), String(ms));
  }
});

test('isoTimestamp: with no argument, now', () => {
  const before = Date.now();
  const stamp = Date.parse(isoTimestamp());
  assert.ok(stamp >= before && stamp <= Date.now());
});

test.run();

// Watch modes seen before running (watch-mode.ts): on the command line, or in the package.json script it calls.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir, suite } from '@leap/test-utils';
import { suiteLimitNarration, watchModeOf } from '../src/watch-mode.js';

const watch = suite('watchModeOf');
watch.after.each(cleanupTempDirs);

function project(scripts: Record<string, string>): string {
  const root = mkdtempSync(join(makeTempDir(), 'p-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts }));
  return root;
}

watch('each runner watch mode on a command line, with its run form; run forms and look-alikes are not', () => {
  const root = project({});
  const table: [string, string | null, string | null][] = [
    ['npx vitest --watch', 'vitest --watch', 'npx vitest run'],
    ['vitest -w --reporter=dot', 'vitest -w', 'vitest run --reporter=dot'],
    ['vitest watch src', 'vitest watch', 'vitest run src'],
    ['npx vitest dev', 'vitest dev', 'npx vitest run'],
    ['FOO=1 pnpm exec vitest --watch=true', 'vitest --watch=true', 'FOO=1 pnpm exec vitest run'],
    ['yarn vitest --watch', 'vitest --watch', 'yarn vitest run'],
    ['jest --watch', 'jest --watch', 'jest'],
    ['npx jest --ci --watchAll', 'jest --watchAll', 'npx jest --ci'],
    ['mocha -w "test/**/*.js"', 'mocha -w', "mocha 'test/**/*.js'"],
    ['mocha --watch', 'mocha --watch', 'mocha'],
    ['node --test --watch test/', 'node --watch', 'node --test test/'],
    ['node --watch-path=src --test', 'node --watch-path=src', 'node --test'],
    ['cargo watch -x test', 'cargo watch', 'cargo test'],
    ['cd pkg && npx vitest --watch', 'vitest --watch', 'npx vitest run'],
    // vitest without `run` runs once when stdin is not a terminal, as every suite run's is (vitest.slow.test.ts measures it).
    ['vitest', null, null],
    ['npx vitest run', null, null],
    ['jest', null, null],
    ['node --test', null, null],
    ['cargo test', null, null],
    ['echo "vitest --watch"', null, null],
    ["grep -r 'jest --watch' .", null, null],
  ];
  for (const [command, seen, runForm] of table) {
    const found = watchModeOf(root, command);
    assert.equal(found === null ? [null, null] : [found.seen, found.runForm], [seen, runForm], command);
    if (found !== null) assert.is(found.where, 'the command line', command);
  }
});

watch('npm test, npm run X, pnpm X and yarn X read the script they call, scripts calling scripts included', () => {
  const root = project({
    test: 'npm run unit',
    unit: 'vitest --watch',
    t2: 'cross-env CI=1 mocha -w',
    t3: 'jest --watchAll',
    once: 'vitest',
    loop: 'npm run loop',
  });
  const table: [string, string | null, string | null][] = [
    ['npm test', 'the "unit" script of package.json (`vitest --watch`)', 'npx vitest run'],
    ['npm t', 'the "unit" script of package.json (`vitest --watch`)', 'npx vitest run'],
    ['pnpm test', 'the "unit" script of package.json (`vitest --watch`)', 'npx vitest run'],
    ['npm run t2', 'the "t2" script of package.json (`cross-env CI=1 mocha -w`)', 'npx cross-env CI=1 mocha'],
    ['yarn t3', 'the "t3" script of package.json (`jest --watchAll`)', 'npx jest'],
    ['pnpm run t3 --silent', 'the "t3" script of package.json (`jest --watchAll`)', 'npx jest'],
    ['npm run once', null, null],
    ['npm run loop', null, null],
    ['npm run missing', null, null],
    ['npm install', null, null],
  ];
  for (const [command, where, runForm] of table) {
    const found = watchModeOf(root, command);
    assert.equal(found === null ? [null, null] : [found.where, found.runForm], [where, runForm], command);
  }
  assert.is(watchModeOf(makeTempDir(), 'npm test'), null, 'no package.json');
});

watch('a suite ended by its own limit names VERI_SUITE_TIMEOUT, both where it came from and what to raise', () => {
  const facts = { limit: 'timeout', lastLine: null, value: '3', source: 'VERI_SUITE_TIMEOUT' } as const;
  assert.is(
    suiteLimitNarration(makeTempDir(), 'make check', facts),
    'The test command `make check` did not end: its time limit (3, VERI_SUITE_TIMEOUT) ended it, with every process ' +
      'it started. It printed nothing. If the suite needs longer, raise VERI_SUITE_TIMEOUT; if it waits for ' +
      'something (a server, input, a lock), make it end by itself. Then run again.',
  );
});

watch.run();

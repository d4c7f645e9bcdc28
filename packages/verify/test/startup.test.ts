import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@leap/test-utils';
import { juryBin, verdictBin, verifyBin } from './helpers.js';

const startup = suite('bin start-up');

// What a bin loads at start-up, watched as it happens (the bundles are minified, so their text is no guide):
// every require() of its modules, recorded by a hook loaded first, the bin asked only for --help.
const HOOK = `const Module = require('node:module');
const seen = [];
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (!isMain) seen.push(request);
  return load.apply(this, arguments);
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.LEAP_STARTUP_SEEN, JSON.stringify(seen)));
`;

startup(
  'the bundled bins import only node built-ins at start-up: zod, ajv, simple-git and zx load on demand or never',
  () => {
    const dir = makeTempDir('leap-startup-');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(hook, HOOK);
    for (const bin of [verifyBin, verdictBin, juryBin]) {
      const seenFile = join(dir, 'seen.json');
      const run = spawnSync(process.execPath, ['--require', hook, bin, '--help'], {
        env: { ...process.env, LEAP_STARTUP_SEEN: seenFile },
        encoding: 'utf8',
      });
      assert.is(run.status, 0, run.stderr);
      const seen = JSON.parse(readFileSync(seenFile, 'utf8')) as string[];
      assert.ok(
        seen.some((spec) => spec.startsWith('node:')),
        `${bin} loads node's built-ins at start-up`,
      );
      assert.equal(
        seen.filter((spec) => !spec.startsWith('node:') && !spec.startsWith('./') && !spec.startsWith('../')),
        [],
        `${bin} imports a dependency at start-up`,
      );
    }
  },
);

startup.run();

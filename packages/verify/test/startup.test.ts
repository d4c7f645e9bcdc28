import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { juryBin, verdictBin, verifyBin } from './helpers.js';

const startup = suite('bin start-up');

startup('the bundled bins import only node built-ins at start-up: zod, ajv, simple-git and zx load on demand or never', () => {
  for (const bin of [verifyBin, verdictBin, juryBin]) {
    // Follow the static imports from the bin through its eagerly loaded chunks.
    const imports: string[] = [];
    const seen = new Set<string>();
    // The bundles are CommonJS: a start-up import is a top-level `var x = require("...")`; lazy ones sit inside functions.
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^var \w+ = (?:__toESM\()?require\("([^"]+)"\)/gm)) {
        const spec = m[1] as string;
        if (spec.startsWith('./') || spec.startsWith('../')) visit(join(dirname(file), spec));
        else imports.push(spec);
      }
    };
    visit(bin);
    assert.ok(imports.length > 0, `${bin} has static imports`);
    assert.equal(
      imports.filter((spec) => !spec.startsWith('node:')),
      [],
      `${bin} imports a dependency at start-up`,
    );
  }
});

startup.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLocalTracker } from '@leap/tracker-local';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { allCriteria, criterionBlock, readStepSpec } from '../src/index.js';

const BODY = 'Intro.\n\n## Acceptance criteria\n\n1. [ ] first\n   continues here\n\n2. second\n## Notes\nnot part\n';

const block = suite('criterionBlock');

block('criterion K with its continuation lines, up to the next criterion or heading', () => {
  assert.is(criterionBlock(BODY, 1, 'b'), '1. [ ] first\n   continues here');
  assert.is(criterionBlock(BODY, 2, 'b'), '2. second');
  assert.is(criterionBlock('## Acceptance criteria\r\n- a\r\n  b\r\n', 1, 'b'), '- a\n  b');
});

block('a criterion number past the list, or no criteria section, names the source', () => {
  assert.throws(
    () => criterionBlock(BODY, 3, 'issue 3'),
    /issue 3: the step links to criterion 3, but the acceptance criteria list 2/,
  );
  assert.throws(() => criterionBlock('no section', 1, 'issue 3'), /issue 3: no "## Acceptance criteria" section/);
});

block.run();

// ---

const all = suite('allCriteria');

all('every criterion as written', () => {
  assert.is(allCriteria(BODY, 'b'), '1. [ ] first\n   continues here\n2. second');
});

all.run();

// ---

const read = suite('readStepSpec');
read.after.each(cleanupTempDirs);

function tracker(text: string) {
  const state = makeTempDir();
  mkdirSync(join(state, 'issues'));
  writeFileSync(join(state, 'issues', '3.md'), text);
  return createLocalTracker({ stateDir: state });
}

read('the linked criterion, else all criteria, else the body; --spec wins', async () => {
  const local = tracker(`# T\n\n${BODY}`);
  assert.is(await readStepSpec({ tracker: local, issue: 3, criterion: 2 }), '2. second');
  assert.is(
    await readStepSpec({ tracker: local, issue: 3, criterion: null }),
    '1. [ ] first\n   continues here\n2. second',
  );
  assert.is(
    await readStepSpec({ tracker: tracker('# T\n\nJust prose.\n'), issue: 3, criterion: null }),
    'Just prose.\n',
  );
  const spec = join(makeTempDir(), 'spec.md');
  writeFileSync(spec, 'the spec\n');
  assert.is(await readStepSpec({ tracker: local, issue: null, criterion: 1, specFile: spec }), 'the spec\n');
});

read('no issue, a missing spec file or a missing issue are clear errors', async () => {
  const local = tracker('# T\n');
  await readStepSpec({ tracker: local, issue: null, criterion: null }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /no issue to read the behaviour spec from: set VERI_ISSUE or pass --issue N/),
  );
  await readStepSpec({ tracker: local, issue: null, criterion: null, specFile: '/nonexistent/spec' }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /--spec \/nonexistent\/spec: ENOENT/),
  );
  await readStepSpec({ tracker: local, issue: 4, criterion: null }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /no issue 4/),
  );
});

read.run();

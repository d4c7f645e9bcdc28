import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError, UsageError } from '../src/errors.js';
import { readCriteria, tickCriterion } from '../src/ledger/index.js';

const BODY = [
  'Users need to parse configs.', //                         1
  '', //                                                     2
  '```', //                                                  3
  '## Acceptance criteria', //                               4
  '- [ ] fenced, not a criterion', //                        5
  '```', //                                                  6
  '', //                                                     7
  '## Acceptance Criteria:', //                              8
  '', //                                                     9
  '- [ ] reads an empty file', //                            10
  '  continuation of the first criterion', //               11
  '  - [ ] nested, part of criterion 1', //                 12
  '* [x] rejects `$(bad)` keys', //                          13
  '+ [X]\tkeeps "quotes"', //                                14
  '- plain bullet, no box', //                               15
  '---', //                                                  16
  '### Details', //                                          17
  '1. [ ] ordered with a box', //                            18
  '2) ordered without a box', //                             19
  '3. [ ]', //                                               20
  '- [y] not a box, so plain text', //                       21
  '<!--', //                                                 22
  '- [ ] commented out', //                                  23
  '-->', //                                                  24
  '## Notes', //                                             25
  '- [ ] after the section', //                              26
].join('\r\n');

const read = suite('readCriteria');

read('numbers the top-level items of the section from 1, with their first line', () => {
  assert.equal(readCriteria(BODY), [
    { index: 1, text: 'reads an empty file', checked: false, checkable: true, line: 10 },
    { index: 2, text: 'rejects `$(bad)` keys', checked: true, checkable: true, line: 13 },
    { index: 3, text: 'keeps "quotes"', checked: true, checkable: true, line: 14 },
    { index: 4, text: 'plain bullet, no box', checked: false, checkable: false, line: 15 },
    { index: 5, text: 'ordered with a box', checked: false, checkable: true, line: 18 },
    { index: 6, text: 'ordered without a box', checked: false, checkable: false, line: 19 },
    { index: 7, text: '', checked: false, checkable: true, line: 20 },
    { index: 8, text: '[y] not a box, so plain text', checked: false, checkable: false, line: 21 },
  ]);
});

read('the section ends at a heading of its level or higher; any level may open it', () => {
  assert.equal(
    readCriteria('### Acceptance criteria\n- [ ] a\n#### Sub\n- [ ] b\n### Next\n- [ ] c').map((c) => c.text),
    ['a', 'b'],
  );
  assert.equal(
    readCriteria('# Acceptance criteria\n1. a\n1. b\n10) c\n1234567890. not an item\n1.x\n').map((c) => c.text),
    ['a', 'b', 'c'],
  );
  assert.equal(readCriteria('## Acceptance criteria\n-\n- \n* * *\n'), [
    { index: 1, text: '', checked: false, checkable: false, line: 2 },
    { index: 2, text: '', checked: false, checkable: false, line: 3 },
  ]);
});

read('a FileFormatError without the section, naming the file', () => {
  try {
    readCriteria('## Acceptance\n- [ ] a\n', 'issue-5.md');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, FileFormatError);
    assert.is((error as FileFormatError).file, 'issue-5.md');
    assert.match((error as Error).message, /^issue-5\.md: no "## Acceptance criteria" section/);
  }
});

read.run();

// ---

const tick = suite('tickCriterion');

const lines = (text: string): string[] => text.split(/(?<=\n)/);

tick('ticks criterion K on its line only, whatever the list kind', () => {
  for (const [k, line] of [
    [1, 10],
    [5, 18],
    [7, 20],
  ] as const) {
    const after = tickCriterion(BODY, k, 'body.md');
    const a = lines(BODY);
    const b = lines(after);
    assert.is(b.length, a.length);
    for (const [i, text] of b.entries())
      assert.is(text, i === line - 1 ? (a[i] as string).replace('[ ]', '[x]') : a[i]);
    assert.is(readCriteria(after)[k - 1]?.checked, true);
  }
});

tick('errors: no section, no criterion K, no box, already ticked, a bad K', () => {
  const fails = (run: () => unknown, type: new (...args: never[]) => Error, pattern: RegExp): void => {
    try {
      run();
      assert.unreachable();
    } catch (error) {
      assert.instance(error, type);
      assert.match((error as Error).message, pattern);
    }
  };
  fails(() => tickCriterion('no section', 1), FileFormatError, /^<stdin>: no "## Acceptance criteria" section/);
  fails(
    () => tickCriterion(BODY, 9, 'body.md'),
    FileFormatError,
    /^body\.md:8: "## Acceptance criteria" has 8 criteria, so no criterion 9$/,
  );
  fails(
    () => tickCriterion('## Acceptance criteria\n- [ ] a\n', 2),
    FileFormatError,
    /has 1 criterion, so no criterion 2/,
  );
  fails(
    () => tickCriterion(BODY, 4, 'body.md'),
    FileFormatError,
    /^body\.md:15: criterion 4 has no checkbox to tick: expected "- \[ \] TEXT" or "1\. \[ \] TEXT"$/,
  );
  fails(() => tickCriterion(BODY, 2, 'body.md'), UsageError, /^body\.md:13: criterion 2 is already ticked$/);
  for (const k of [0, -1, 1.5, Number.NaN])
    fails(() => tickCriterion(BODY, k), UsageError, /Expected the criterion number to be a positive integer, got/);
});

tick.run();

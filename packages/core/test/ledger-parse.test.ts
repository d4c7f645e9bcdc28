import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError } from '../src/errors.js';
import { currentStep, findStep, parseLedger, serializeLedger } from '../src/ledger/index.js';
import type { LedgerStep } from '../src/ledger/index.js';

const fixture = readFileSync(new URL('fixtures/ledger/issue-7.md', import.meta.url), 'utf8');

// The steps as [title, state, line, criterion] tuples, easier to read in assertions.
function rows(text: string): Array<[string, string, number, number | null]> {
  return parseLedger(text).steps.map((s: LedgerStep) => [s.title, s.state, s.line, s.criterion]);
}

// The line and message of the FileFormatError parseLedger throws.
function failure(text: string, file?: string): { line: number | undefined; message: string; file: string } {
  try {
    parseLedger(text, file);
  } catch (error) {
    assert.instance(error, FileFormatError);
    const e = error as FileFormatError;
    assert.is(e.exitCode, 2);
    return { line: e.line, message: e.message, file: e.file };
  }
  throw new Error('expected parseLedger to throw');
}

const parse = suite('parseLedger');

parse('reads the fixture: only the Steps section, outside code and comments', () => {
  assert.equal(rows(fixture), [
    ['reads an empty file', 'done', 16, 1],
    ['rejects a `$(bad)` key', 'refactor-pending', 17, 2],
    ['keeps "quotes", it\'s fine', 'todo', 19, 3],
    ['handles 🚀 and עברית', 'todo', 23, null],
    ['done with an upper-case X', 'done', 24, null],
  ]);
  const ledger = parseLedger(fixture, 'issue-7.md');
  assert.is(ledger.file, 'issue-7.md');
  assert.is(ledger.stepsLine, 14);
  assert.is(ledger.text, fixture);
});

parse('defaults the file name to <stdin>', () => {
  assert.is(parseLedger('## Steps\n').file, '<stdin>');
  assert.equal(parseLedger('## Steps\n').steps, []);
});

parse('line endings: CRLF, LF, mixed, a final \\r, no final newline', () => {
  assert.equal(rows('## Steps\r\n- [ ] a\r\n- [x] b\r\n'), [
    ['a', 'todo', 2, null],
    ['b', 'done', 3, null],
  ]);
  assert.equal(rows('## Steps\n- [ ] a\r\n- [x] b'), [
    ['a', 'todo', 2, null],
    ['b', 'done', 3, null],
  ]);
  assert.equal(rows('## Steps\r\n- [ ] a\n- [x] b\r'), [
    ['a', 'todo', 2, null],
    ['b', 'done', 3, null],
  ]);
  assert.equal(rows('\ufeff## Steps\r\n- [ ] a <!-- refactor-pending -->x'), [
    ['a <!-- refactor-pending -->x', 'todo', 2, null],
  ]);
});

parse('markers: either order, glued or spaced, any case, trailing blanks', () => {
  assert.equal(
    rows(
      [
        '## Steps',
        '- [x] a <!-- criterion: 2 --> <!-- refactor-pending -->',
        '- [x] b <!-- refactor-pending --> <!-- criterion: 3 -->  ',
        '- [X] c<!--refactor-pending--><!--criterion:4-->\t',
        '- [x] d\t<!-- Refactor-Pending -->',
        '- [ ] e <!--  CRITERION :  12  -->',
      ].join('\n'),
    ),
    [
      ['a', 'refactor-pending', 2, 2],
      ['b', 'refactor-pending', 3, 3],
      ['c', 'refactor-pending', 4, 4],
      ['d', 'refactor-pending', 5, null],
      ['e', 'todo', 6, 12],
    ],
  );
});

parse('canonical markers, as renderLedger and tickStep write them', () => {
  assert.equal(
    rows(
      [
        '## Steps',
        '- [x] a <!-- criterion: 3 --> <!-- refactor-pending -->',
        '- [x] b <!-- refactor-pending -->',
        '- [ ] c <!-- criterion: 123456789012345 -->',
        '- [X] d -- <!-- criterion: 1 -->',
        '- [ ] > <!-- criterion: 2 -->',
      ].join('\r\n'),
    ),
    [
      ['a', 'refactor-pending', 2, 3],
      ['b', 'refactor-pending', 3, null],
      ['c', 'todo', 4, 123456789012345],
      ['d --', 'done', 5, 1],
      ['>', 'todo', 6, 2],
    ],
  );
});

parse('titles are data: comments that are not trailing markers stay in the title', () => {
  assert.equal(
    rows(
      [
        '## Steps',
        '- [ ] a <!-- note -->',
        '- [ ] b <!-- x --> y -->',
        '- [ ] c <!--> <!-- criterion: 1 -->',
        '- [ ] <!-- criterion: 2 --> d',
        '- [ ] e -->',
        '- [ ]  \t f \t <!-- criterion: 5 -->',
        '- [ ] <!--',
        '-\t[ ] g',
      ].join('\n'),
    ),
    [
      ['a <!-- note -->', 'todo', 2, null],
      ['b <!-- x --> y -->', 'todo', 3, null],
      ['c <!-->', 'todo', 4, 1],
      ['<!-- criterion: 2 --> d', 'todo', 5, null],
      ['e -->', 'todo', 6, null],
      ['f', 'todo', 7, 5],
      ['<!--', 'todo', 8, null],
      ['g', 'todo', 9, null],
    ],
  );
});

parse('hostile titles come back byte for byte', () => {
  const titles = [
    '$(rm -rf ~)',
    '`id`',
    '"q" \'a\'',
    'back\\slash\\',
    '%s %d',
    'tab\there',
    '🚀 emoji',
    'مرحبا',
    '\u202Eevil',
    '\u00a0nbsp\u00a0',
    'x'.repeat(2000),
  ];
  const text = `## Steps\n${titles.map((t) => `- [ ] ${t}`).join('\n')}\n`;
  assert.equal(
    parseLedger(text).steps.map((s) => s.title),
    titles,
  );
});

parse('not steps: indented lines, prose, breaks, deeper headings group steps', () => {
  assert.equal(
    rows(
      [
        '## Steps',
        '  - [ ] nested',
        '\t- [x] tab-nested',
        '   - [] odd but indented',
        '---',
        '* * *',
        '___',
        '+++ not a break, not a list item',
        '*emphasis* is prose',
        '*[link](x)* is prose',
        '-foo is prose',
        '3.5 apples',
        '1234567890. too many digits',
        '#hashtag is not a heading',
        '####### seven hashes is not a heading',
        '    ## indented four is not a heading',
        '### Phase 1',
        '- [ ] a',
        '<!-- one-line comment -->',
        '<!-->',
        '- [ ] b',
      ].join('\n'),
    ),
    [
      ['a', 'todo', 18, null],
      ['b', 'todo', 21, null],
    ],
  );
});

parse('fences: same character, at least as long, nothing after; indented up to 3', () => {
  assert.equal(
    rows(
      [
        '## Steps',
        '````',
        '- [ ] hidden 1',
        '```',
        '~~~~',
        '- [ ] hidden 2',
        '````  ',
        '- [ ] a',
        '  ~~~ info `with` backticks',
        '- [ ] hidden 3',
        '~~~ x',
        '    ~~~',
        '- [ ] hidden 4',
        '   ~~~~~',
        '``` a`b is not a fence',
        '    ```',
        '- [ ] b',
        '```js',
        '## Notes',
        '```',
        '- [ ] c',
      ].join('\n'),
    ),
    [
      ['a', 'todo', 8, null],
      ['b', 'todo', 17, null],
      ['c', 'todo', 21, null],
    ],
  );
});

parse('HTML comment blocks hide their lines, headings included', () => {
  assert.equal(rows('<!--\n## Steps\n-->\n## Steps\n<!-- a\n- [ ] hidden\n## Notes\nb -->\n- [ ] a\n'), [
    ['a', 'todo', 9, null],
  ]);
});

parse('the section: ATX level 2 "Steps", closing hashes, up to 3 spaces; ends at level 1 or 2', () => {
  assert.equal(rows('# T\n   ## Steps ##\n- [ ] a\n### Sub\n- [ ] b\n## Notes\n- [ ] c\n'), [
    ['a', 'todo', 3, null],
    ['b', 'todo', 5, null],
  ]);
  assert.equal(rows('##\tSteps\t#\n- [ ] a\n# Appendix\n- [ ] c\n'), [['a', 'todo', 2, null]]);
  assert.equal(rows('## Steps\n- [ ] a\n##\n- [ ] c\n'), [['a', 'todo', 2, null]]);
  assert.equal(rows('## Notes\n- [ ] c\n## Steps\n'), []);
  assert.equal(rows('## Steps \t\n- [ ] a\n'), [['a', 'todo', 2, null]]);
  assert.equal(failure('## Steps#\n').line, 1);
  assert.equal(failure('### Steps\n').line, 1);
  assert.equal(failure('## steps\n').line, 1);
});

parse('errors name the file and the 1-based line', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['', 1, /no "## Steps" heading/],
    ['# T\n\nsome text\n', 1, /no "## Steps" heading/],
    ['# T\n```\n## Steps\n- [ ] a\n', 2, /never closed, so it hides the rest of the file, "## Steps" included/],
    ['## Steps\n- [ ] a\n<!--\n- [ ] b\n', 3, /never closed/],
    ['## Steps\n- [ ] a\n## Steps\n', 3, /a second "## Steps" heading \(the first is at line 1\)/],
    ['## Steps\n- [] x\n', 2, /expected the checkbox "\[ \]", "\[x\]" or "\[X\]", found "\[\]"/],
    ['## Steps\n- [y] x\n', 2, /found "\[y\]"/],
    ['## Steps\n- [  ] x\n', 2, /found "\[  \]"/],
    ['## Steps\n- [ x\n', 2, /found "\[ x"/],
    ['## Steps\n- [abcdefghij] x\n', 2, /found "\[abcdefg"/],
    ['## Steps\n-[ ] x\n', 2, /a space between the bullet and the checkbox, found "-\[ \] x"/],
    ['## Steps\n*[] x\n', 2, /a space between the bullet/],
    ['## Steps\n1. [ ] x\n', 2, /ordered item "1. \[ \] x"/],
    ['## Steps\n\n12) x\n', 3, /ordered item/],
    ['## Steps\n1.\n', 2, /ordered item/],
    ['## Steps\n- note\n', 2, /must be a checkbox step "- \[ \] TITLE", found "- note"/],
    ['## Steps\n-\n', 2, /must be a checkbox step/],
    ['## Steps\n+ + +\n', 2, /must be a checkbox step/],
    ['## Steps\n- [ ]\n', 2, /empty title/],
    ['## Steps\r\n- [x]  \t\r\n', 2, /empty title/],
    ['## Steps\n- [x] <!-- refactor-pending -->\n', 2, /empty title: the line holds only markers/],
    ['## Steps\n- [x]x\n', 2, /a space after the checkbox, found "- \[x\]x"/],
    ['## Steps\n- [ ] a\r b\n', 2, /carriage return/],
    ['## Steps\n- [ ] a <!-- refactor-pending -->\n', 2, /an unchecked step carries <!-- refactor-pending -->/],
    [
      '## Steps\n- [x] a <!-- criterion: 3 --> <!-- refactor-pending -->\n- [ ] b <!-- criterion: 4 --> <!-- refactor-pending -->\n',
      3,
      /an unchecked step carries/,
    ],
    [
      '## Steps\n- [x] a <!-- refactor pending -->\n',
      2,
      /expected "<!-- refactor-pending -->", found "<!-- refactor pending -->"/,
    ],
    ['## Steps\n- [x] a <!-- criterion 3 -->\n', 2, /with K a positive integer, found "<!-- criterion 3 -->"/],
    ['## Steps\n- [x] a <!-- criterion: 0 -->\n', 2, /positive integer/],
    ['## Steps\n- [x] a <!-- criterion: 01 -->\n', 2, /positive integer/],
    ['## Steps\n- [x] a <!-- criterion: 99999999999999999999 -->\n', 2, /positive integer/],
    ['## Steps\n- [x] a <!-- criterion: 1 --> <!-- criterion: 2 -->\n', 2, /two <!-- criterion: K --> markers/],
    [
      '## Steps\n- [x] a <!-- refactor-pending --><!-- refactor-pending -->\n',
      2,
      /two <!-- refactor-pending --> markers/,
    ],
    ['## Steps\n- [ ] a\n\n- [x] a\n', 4, /duplicate title "a" \(first at line 2\)/],
  ];
  for (const [text, line, pattern] of cases) {
    const found = failure(text, 'issue-1.md');
    assert.is(found.line, line, `line of ${JSON.stringify(text)}`);
    assert.is(found.file, 'issue-1.md');
    assert.ok(found.message.startsWith(`issue-1.md:${line}: `), found.message);
    assert.match(found.message, pattern);
  }
});

parse('a long line is cut short in messages', () => {
  const long = 'y'.repeat(2000);
  const found = failure(`## Steps\n- note ${long}\n- [ ] ${long}\n- [x] ${long}\n`);
  assert.is(found.line, 2);
  assert.ok(found.message.length < 200, found.message);
  assert.is(failure(`## Steps\n- [ ] ${long}\n- [x] ${long}\n`).message.includes('(2000 characters)'), true);
  const emoji = `${'e'.repeat(79)}🚀${'z'.repeat(100)}`;
  assert.match(failure(`## Steps\n- [ ] ${emoji}\n- [x] ${emoji}\n`).message, /duplicate title "e{79}"…/);
});

parse.run();

// ---

const serialize = suite('serializeLedger');

serialize('returns the input byte for byte', () => {
  for (const text of [
    fixture,
    '## Steps',
    '## Steps\r\n- [ ] a\r\n\n  \t\n- [x] b <!-- refactor-pending -->  \r',
    '\ufeff## Steps\n',
  ]) {
    assert.is(serializeLedger(parseLedger(text)), text);
  }
});

serialize.run();

// ---

const big = suite('a big ledger');

big('3,000 steps with markers read back, and the queries find their steps', () => {
  const steps = Array.from(
    { length: 3000 },
    (_, i) => `- [${i < 2000 ? 'x' : ' '}] Step ${i}: "quoted" $(x) 🦀 <!-- criterion: ${(i % 9) + 1} -->`,
  );
  const text = `# Big\n\n## Steps\n\n${steps.join('\n')}\n`;
  const ledger = parseLedger(text);
  assert.is(ledger.steps.length, 3000);
  assert.equal(ledger.steps[2999], { title: 'Step 2999: "quoted" $(x) 🦀', state: 'todo', line: 3004, criterion: 3 });
  assert.is(currentStep(ledger)?.title, 'Step 2000: "quoted" $(x) 🦀');
  assert.is(findStep(ledger, 'Step 1999: "quoted" $(x) 🦀')?.line, 2004);
});

big.run();

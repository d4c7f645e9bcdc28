import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError, UsageError } from '../src/errors.js';
import { parseLedger, parsePlan, renderLedger } from '../src/ledger/index.js';

const render = suite('renderLedger');

render('a canonical ledger that parses back to the plan', () => {
  const text = renderLedger({
    title: 'Issue 12: config',
    steps: [
      { title: 'reads $(x) `y`', criterion: 1 },
      { title: "it's <!-- not a marker --> ok" },
      { title: 'ends <!-- note -->', criterion: null },
    ],
  });
  assert.is(
    text,
    [
      '# Issue 12: config',
      '',
      '## Steps',
      '',
      '- [ ] reads $(x) `y` <!-- criterion: 1 -->',
      "- [ ] it's <!-- not a marker --> ok",
      '- [ ] ends <!-- note -->',
      '',
    ].join('\n'),
  );
  assert.equal(
    parseLedger(text).steps.map((s) => [s.title, s.state, s.criterion]),
    [
      ['reads $(x) `y`', 'todo', 1],
      ["it's <!-- not a marker --> ok", 'todo', null],
      ['ends <!-- note -->', 'todo', null],
    ],
  );
  assert.is(renderLedger({ title: 'Empty', steps: [] }), '# Empty\n\n## Steps\n\n');
});

render('refuses what would not read back, naming the step', () => {
  const refuses = (plan: Parameters<typeof renderLedger>[0], pattern: RegExp): void => {
    try {
      renderLedger(plan);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, UsageError);
      assert.match((error as Error).message, pattern);
    }
  };
  refuses({ title: ' ', steps: [] }, /Expected the ledger title to be one non-empty line, got " "/);
  refuses({ title: 'a\nb', steps: [] }, /one non-empty line/);
  refuses(
    { title: 'T', steps: [{ title: 'a', criterion: 0 }] },
    /^Expected steps\[0\]\.criterion to be a positive integer, got 0$/,
  );
  refuses({ title: 'T', steps: [{ title: 'a', criterion: 1.5 }] }, /got 1\.5/);
  refuses({ title: 'T', steps: [{ title: 'a' }, { title: '' }] }, /^steps\[1\]: empty title/);
  refuses({ title: 'T', steps: [{ title: 'a\r\nb' }] }, /^steps\[0\]: a title is one line/);
  refuses({ title: 'T', steps: [{ title: ' a' }] }, /^steps\[0\]: title " a" would not read back as itself/);
  refuses({ title: 'T', steps: [{ title: 'a <!-- criterion: 2 -->' }] }, /would not read back/);
  refuses(
    { title: 'T', steps: [{ title: 'a <!-- refactor-pending -->' }] },
    /^steps\[0\]: malformed step: an unchecked step carries/,
  );
  refuses({ title: 'T', steps: [{ title: 'a <!-- criterion: x -->' }] }, /^steps\[0\]: malformed marker/);
  refuses(
    { title: 'T', steps: [{ title: 'a' }, { title: 'b' }, { title: 'a' }] },
    /^steps\[2\]: duplicate title "a" \(same as steps\[0\]\)$/,
  );
});

render.run();

// ---

const plan = suite('parsePlan');

plan('title, then one step a line; list markers, boxes and criterion links', () => {
  const text = [
    '\ufeff',
    '  # Parse the config  ',
    '',
    'reads an empty file (criterion 1)',
    '- rejects `$(bad)` keys <!-- criterion: 2 -->',
    '* [ ] keeps "quotes" ( Criterion  3 )',
    '+ fix #12',
    '1. [ ] numbered',
    '2) numbered too',
    '\t-\twith blanks\t',
    'a (criterion) b (note)',
    'mentions (criterion one)',
    '- [ ]',
  ].join('\r\n');
  const found = (() => {
    try {
      return parsePlan(text);
    } catch (error) {
      return error as FileFormatError;
    }
  })();
  assert.instance(found, FileFormatError);
  assert.is((found as FileFormatError).line, 13);
  assert.equal(parsePlan(text.replace(/\r\n- \[ \]$/, '')), {
    title: 'Parse the config',
    steps: [
      { title: 'reads an empty file', criterion: 1 },
      { title: 'rejects `$(bad)` keys', criterion: 2 },
      { title: 'keeps "quotes"', criterion: 3 },
      { title: 'fix #12', criterion: null },
      { title: 'numbered', criterion: null },
      { title: 'numbered too', criterion: null },
      { title: 'with blanks', criterion: null },
      { title: 'a (criterion) b (note)', criterion: null },
      { title: 'mentions (criterion one)', criterion: null },
    ],
  });
  assert.equal(parsePlan('#title without a space\nstep').title, '#title without a space');
  assert.equal(parsePlan('##\tTitle ##\nstep').title, 'Title ##');
});

plan('round trip: renderLedger(parsePlan(x)) parses to the same steps', () => {
  const parsed = parsePlan('Plan\n- a $(b) (criterion 4)\n- c\n');
  assert.equal(
    parseLedger(renderLedger(parsed)).steps.map((s) => ({ title: s.title, criterion: s.criterion })),
    parsed.steps,
  );
});

plan('errors name the file and the line', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['', 1, /empty plan/],
    ['\n \n\t\n', 1, /empty plan/],
    ['#\nstep', 1, /empty title: the first line of a plan is the ledger title/],
    ['Title\n\n', 1, /the plan has a title but no steps/],
    ['Title\n- a\n\n-  a  \n', 4, /duplicate step "a" \(first at line 2\)/],
    ['Title\n-\n', 2, /empty step/],
    ['Title\n1. [ ] \n', 2, /empty step/],
    ['Title\n<!-- criterion: 2 -->\n', 2, /empty title: the line holds only markers/],
    ['Title\n## Steps\n', 2, /a heading is not a step, found "## Steps"/],
    ['Title\n- [x] done\n', 2, /a checked step/],
    ['Title\na <!-- refactor-pending -->\n', 2, /an unchecked step carries <!-- refactor-pending -->/],
    ['Title\na <!-- criterion: 1 --> (criterion 2)\n', 2, /two criterion links/],
    ['Title\na (criterion 0)\n', 2, /expected "\(criterion K\)" with K a positive integer, found "\(criterion 0\)"/],
    ['Title\na (criterion 99999999999999999999)\n', 2, /positive integer/],
    ['Title\na <!-- criterion: -1 -->\n', 2, /malformed marker/],
    ['Title\nok\na\rb\n', 3, /carriage return/],
  ];
  for (const [text, line, pattern] of cases) {
    try {
      parsePlan(text, 'plan.txt');
      assert.unreachable(`expected ${JSON.stringify(text)} to fail`);
    } catch (error) {
      assert.instance(error, FileFormatError);
      assert.is((error as FileFormatError).line, line, JSON.stringify(text));
      assert.match((error as Error).message, new RegExp(`^plan\\.txt:${line}: `));
      assert.match((error as Error).message, pattern);
    }
  }
});

plan.run();

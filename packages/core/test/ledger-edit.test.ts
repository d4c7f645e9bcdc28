import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError, UsageError } from '../src/errors.js';
import { clearRefactorPending, parseLedger, setRefactorPending, tickStep } from '../src/ledger/index.js';

const LEDGER = [
  '# Issue 3', //                                                          1
  '', //                                                                   2
  '## Steps', //                                                           3
  '', //                                                                   4
  '- [ ] parse $(x) `y` "z" <!-- criterion: 1 -->', //                    5
  "* [X] render it's done <!-- refactor-pending --> <!-- criterion: 2 -->", // 6
  '+ [x] ship<!--refactor-pending-->', //                                 7
  '- [x] tidy', //                                                         8
  '- [ ] trailing blanks <!-- criterion: 4 -->  \t', //                   9
  '- [ ] <!-- note --> kept', //                                          10
].join('\r\n');

// Lines with their endings, as the brief's round-trip checks compare them.
const lines = (text: string): string[] => text.split(/(?<=\n)/);

// The edited text differs from the original on line `line` only, and that line keeps its ending.
function changedOnly(before: string, after: string, line: number): string {
  const a = lines(before);
  const b = lines(after);
  assert.is(b.length, a.length);
  for (let i = 0; i < a.length; i++) {
    if (i === line - 1) {
      assert.is.not(b[i], a[i]);
      assert.is(b[i]?.match(/\r?\n$/)?.[0], a[i]?.match(/\r?\n$/)?.[0]);
    } else {
      assert.is(b[i], a[i], `line ${i + 1} changed`);
    }
  }
  return (b[line - 1] ?? '').replace(/\r?\n$/, '');
}

function throws(run: () => unknown, type: typeof UsageError | typeof FileFormatError, pattern: RegExp): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, type);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable('expected an error');
}

const state = (text: string, title: string): string | undefined =>
  parseLedger(text).steps.find((s) => s.title === title)?.state;

const tick = suite('tickStep');

tick('todo -> refactor-pending: x in the box, the marker after the title and its markers', () => {
  const after = tickStep(LEDGER, 'parse $(x) `y` "z"', 'issue-3.md');
  assert.is(changedOnly(LEDGER, after, 5), '- [x] parse $(x) `y` "z" <!-- criterion: 1 --> <!-- refactor-pending -->');
  assert.is(state(after, 'parse $(x) `y` "z"'), 'refactor-pending');
  assert.is(parseLedger(after).steps[0]?.criterion, 1);
});

tick('keeps trailing blanks after the new marker, and non-marker comments in the title', () => {
  assert.is(
    changedOnly(LEDGER, tickStep(LEDGER, 'trailing blanks'), 9),
    '- [x] trailing blanks <!-- criterion: 4 --> <!-- refactor-pending -->  \t',
  );
  assert.is(
    changedOnly(LEDGER, tickStep(LEDGER, '<!-- note --> kept'), 10),
    '- [x] <!-- note --> kept <!-- refactor-pending -->',
  );
});

tick('the last line without a final newline, and LF files', () => {
  const text = '## Steps\n- [ ] a\n- [ ] b';
  assert.is(tickStep(text, 'b'), '## Steps\n- [ ] a\n- [x] b <!-- refactor-pending -->');
  assert.is(tickStep(text, 'a'), '## Steps\n- [x] a <!-- refactor-pending -->\n- [ ] b');
});

tick('errors: a step not todo, an unknown title, a malformed ledger', () => {
  throws(
    () => tickStep(LEDGER, 'tidy', 'issue-3.md'),
    UsageError,
    /^issue-3\.md:8: cannot tick step "tidy": expected a todo step, found a done one$/,
  );
  throws(
    () => tickStep(LEDGER, 'ship'),
    UsageError,
    /^<stdin>:7: cannot tick step "ship": expected a todo step, found a refactor-pending one$/,
  );
  throws(
    () => tickStep(LEDGER, 'Tidy', 'issue-3.md'),
    UsageError,
    /^issue-3\.md: no step titled "Tidy" \(titles match exactly; did you mean "tidy" \(line 8\)\?\)$/,
  );
  throws(() => tickStep('## Steps\n- [ ] a\n- [y] b\n', 'a', 'f.md'), FileFormatError, /^f\.md:3: /);
});

tick.run();

// ---

const set = suite('setRefactorPending');

set('done -> refactor-pending, on that one line', () => {
  const after = setRefactorPending(LEDGER, 'tidy');
  assert.is(changedOnly(LEDGER, after, 8), '- [x] tidy <!-- refactor-pending -->');
  assert.is(state(after, 'tidy'), 'refactor-pending');
});

set('errors: todo or already refactor-pending', () => {
  throws(
    () => setRefactorPending(LEDGER, 'trailing blanks'),
    UsageError,
    /:9: cannot mark refactor-pending step "trailing blanks": expected a done step, found a todo one/,
  );
  throws(() => setRefactorPending(LEDGER, 'ship'), UsageError, /:7: .*found a refactor-pending one/);
});

set.run();

// ---

const clear = suite('clearRefactorPending');

clear('refactor-pending -> done: the marker and the blanks before it go, [X] stays', () => {
  const after = clearRefactorPending(LEDGER, "render it's done");
  assert.is(changedOnly(LEDGER, after, 6), "* [X] render it's done <!-- criterion: 2 -->");
  assert.is(state(after, "render it's done"), 'done');
  assert.is(changedOnly(LEDGER, clearRefactorPending(LEDGER, 'ship'), 7), '+ [x] ship');
});

clear('undoes tick up to the box character', () => {
  const text = '## Steps\n\n- [ ] a <!-- criterion: 3 -->   \n';
  assert.is(clearRefactorPending(tickStep(text, 'a'), 'a'), '## Steps\n\n- [x] a <!-- criterion: 3 -->   \n');
  assert.is(clearRefactorPending(setRefactorPending(LEDGER, 'tidy'), 'tidy'), LEDGER);
});

clear('errors: not refactor-pending', () => {
  throws(
    () => clearRefactorPending(LEDGER, 'tidy', 'issue-3.md'),
    UsageError,
    /^issue-3\.md:8: cannot clear refactor-pending on step "tidy": expected a refactor-pending step, found a done one$/,
  );
  throws(
    () => clearRefactorPending(LEDGER, 'nope'),
    UsageError,
    /no step titled "nope" \(titles match exactly; 6 steps, none matches\)/,
  );
});

clear.run();

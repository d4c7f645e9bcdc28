import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../src/errors.js';
import {
  currentOrLastDone,
  currentStep,
  findStep,
  nextPendingRefactor,
  nextUnchecked,
  parseLedger,
} from '../src/ledger/index.js';
import type { Ledger, StepState } from '../src/ledger/index.js';

// A ledger whose steps have the given states, titled `step N`.
function ledgerOf(states: StepState[]): Ledger {
  const lines = states.map((state, i) => {
    const box = state === 'todo' ? '[ ]' : '[x]';
    return `- ${box} step ${i + 1}${state === 'refactor-pending' ? ' <!-- refactor-pending -->' : ''}`;
  });
  return parseLedger(`# Big\n\n## Steps\n\n${lines.join('\n')}\n`, 'big.md');
}

const title = (step: { title: string } | null): string | null => step?.title ?? null;

// 10,000 steps: 9,000 done, then 999 todo with one refactor-pending step among them, far down.
const bigStates: StepState[] = Array.from({ length: 10_000 }, (_, i) =>
  i < 9_000 ? 'done' : i === 9_500 ? 'refactor-pending' : 'todo',
);
const started = performance.now();
const big = ledgerOf(bigStates);
const parseMs = performance.now() - started;

const current = suite('currentStep');

current('the first refactor-pending step wins over an earlier todo step', () => {
  assert.is(title(currentStep(ledgerOf(['done', 'todo', 'refactor-pending', 'refactor-pending']))), 'step 3');
});

current('else the first todo step, else null', () => {
  assert.is(title(currentStep(ledgerOf(['done', 'todo', 'todo']))), 'step 2');
  assert.is(currentStep(ledgerOf(['done', 'done'])), null);
  assert.is(currentStep(ledgerOf([])), null);
});

current('on 10,000 steps', () => {
  assert.is(big.steps.length, 10_000);
  assert.is(title(currentStep(big)), 'step 9501');
  assert.is(currentStep(big)?.line, 5 + 9_500);
  assert.ok(parseMs < 500, `parsing 10,000 steps took ${parseMs.toFixed(1)} ms`);
});

current.run();

// ---

const orLastDone = suite('currentOrLastDone');

orLastDone('as currentStep when a step is in flight', () => {
  assert.is(title(currentOrLastDone(ledgerOf(['done', 'todo']))), 'step 2');
  assert.is(title(currentOrLastDone(big)), 'step 9501');
});

orLastDone('else the last done step, else null', () => {
  assert.is(title(currentOrLastDone(ledgerOf(['done', 'done', 'done']))), 'step 3');
  assert.is(currentOrLastDone(ledgerOf([])), null);
  assert.is(title(currentOrLastDone(ledgerOf(Array<StepState>(10_000).fill('done')))), 'step 10000');
});

orLastDone.run();

// ---

const unchecked = suite('nextUnchecked');

unchecked('the first todo step, else null', () => {
  assert.is(title(nextUnchecked(ledgerOf(['refactor-pending', 'done', 'todo', 'todo']))), 'step 3');
  assert.is(nextUnchecked(ledgerOf(['refactor-pending', 'done'])), null);
  assert.is(title(nextUnchecked(big)), 'step 9001');
});

unchecked.run();

// ---

const pending = suite('nextPendingRefactor');

pending('the first refactor-pending step, else null', () => {
  assert.is(title(nextPendingRefactor(ledgerOf(['todo', 'refactor-pending', 'refactor-pending']))), 'step 2');
  assert.is(nextPendingRefactor(ledgerOf(['todo', 'done'])), null);
  assert.is(title(nextPendingRefactor(big)), 'step 9501');
});

pending.run();

// ---

const find = suite('findStep');

find('matches exactly, byte for byte', () => {
  const ledger = parseLedger('## Steps\n- [ ] Ship it\n- [x] ship it\n- [ ] $(x) `y` "z"\n');
  assert.equal(findStep(ledger, 'ship it'), { title: 'ship it', state: 'done', line: 3, criterion: null });
  assert.is(findStep(ledger, '$(x) `y` "z"').line, 4);
  assert.is(findStep(big, 'step 10000').line, 5 + 9_999);
});

find('a UsageError naming the file, with a hint and nothing huge', () => {
  const ledger = parseLedger('## Steps\n- [ ] Ship  it\n', 'issue-4.md');
  const message = (lookFor: string, l: Ledger = ledger): string => {
    try {
      findStep(l, lookFor);
    } catch (error) {
      assert.instance(error, UsageError);
      return (error as UsageError).message;
    }
    throw new Error('expected findStep to throw');
  };
  assert.is(
    message(' ship it'),
    'issue-4.md: no step titled " ship it" (titles match exactly; did you mean "Ship  it" (line 2)?)',
  );
  assert.is(message('other'), 'issue-4.md: no step titled "other" (titles match exactly; 1 step, none matches)');
  const huge = message('z'.repeat(5000), big);
  assert.ok(huge.length < 200, huge);
  assert.match(
    huge,
    /^big\.md: no step titled "z{80}"… \(5000 characters\) \(titles match exactly; 10000 steps, none matches\)$/,
  );
});

find('titles whose hashes collide are still told apart', () => {
  // "step 115" and "step 422980" have the same 32-bit FNV-1a hash.
  const ledger = parseLedger('## Steps\n- [ ] step 115\n- [x] step 422980\n');
  assert.equal(
    ledger.steps.map((s) => s.title),
    ['step 115', 'step 422980'],
  );
  assert.is(findStep(ledger, 'step 422980').line, 3);
  assert.is(findStep(parseLedger('## Steps\n- [ ] step 422980\n'), 'step 422980').line, 2);
  assert.throws(
    () => findStep(parseLedger('## Steps\n- [ ] step 115\n'), 'step 422980'),
    /no step titled "step 422980"/,
  );
  assert.throws(
    () => parseLedger('## Steps\n- [ ] step 422980\n- [ ] step 115\n- [ ] step 422980\n'),
    /:4: duplicate title "step 422980" \(first at line 2\)/,
  );
});

find('a ledger read lazily, then read or assigned, answers from its steps array', () => {
  const ledger = parseLedger('## Steps\n- [ ] a\n- [x] b <!-- refactor-pending -->\n');
  const step = currentStep(ledger);
  assert.is(ledger.steps[1], step);
  ledger.steps[1] = { title: 'b', state: 'done', line: 3, criterion: null };
  assert.is(currentStep(ledger)?.title, 'a');
  const other = parseLedger('## Steps\n- [ ] a\n');
  other.steps = [];
  assert.is(currentStep(other), null);
  assert.equal(JSON.parse(JSON.stringify(parseLedger('## Steps\n- [ ] a\n', 'f.md'))), {
    file: 'f.md',
    text: '## Steps\n- [ ] a\n',
    stepsLine: 1,
    steps: [{ title: 'a', state: 'todo', line: 2, criterion: null }],
  });
});

find.run();

// ---

const huge = suite('queries past 65,536 steps (the typed arrays grow)');

huge('plain runs and marked steps both grow the arrays', () => {
  const plain = Array.from({ length: 70_000 }, (_, i) => `- [x] s${i}`);
  plain[69_999] = '- [ ] last';
  const a = parseLedger(`## Steps\n${plain.join('\n')}\n`);
  assert.is(a.steps.length, 70_000);
  assert.equal(currentStep(a), { title: 'last', state: 'todo', line: 70_001, criterion: null });
  const marked = Array.from({ length: 65_537 }, (_, i) => `- [x] s${i}`);
  marked[0] = '- [x] s0 <!-- criterion: 1 -->';
  marked[65_536] = '- [x] end <!--criterion:7--> <!-- refactor-pending -->'; // not canonical: the line reader's path
  const b = parseLedger(`## Steps\n${marked.join('\n')}`);
  assert.equal(currentStep(b), { title: 'end', state: 'refactor-pending', line: 65_538, criterion: 7 });
  assert.equal(findStep(b, 's0').criterion, 1);
  assert.equal(findStep(b, 's65535').criterion, null);
});

huge.run();

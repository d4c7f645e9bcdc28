// Generated ledgers: a seeded generator plants steps among everything a person
// may put in a ledger, and the suites check that the ledger reads back exactly,
// that each edit changes one line, and that errors land on the right line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError, UsageError } from '../src/errors.js';
import { readStepLine } from '../src/ledger/step-line.js';
import {
  clearRefactorPending,
  currentOrLastDone,
  currentStep,
  findStep,
  nextPendingRefactor,
  nextUnchecked,
  parseLedger,
  serializeLedger,
  setRefactorPending,
  tickStep,
  validateLedger,
} from '../src/ledger/index.js';
import type { LedgerStep, StepState } from '../src/ledger/index.js';
import { prng } from '@leap/test-utils';

// A seeded PRNG (test-utils' mulberry32), so a failure names a seed that reproduces it.
const random = prng;

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const chance = (rng: Rng, p: number): boolean => rng() < p;
const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));

const FRAGMENTS = [
  '$(rm -rf ~)',
  '`id`',
  '"double"',
  "it's",
  'back\\slash\\n',
  '%s %d %%',
  'tab\there',
  '🚀✨',
  'עברית שלום',
  'مرحبا',
  '\u202Eright-to-left override',
  'has <!-- comment --> inside',
  '<!-- not a marker -->',
  '<!--',
  '-->',
  '[ ] box',
  '[x]',
  '- dash',
  '# hash',
  '```',
  '~~~',
  '*star*',
  'a\u00a0nbsp',
  '\u00a0edge',
  'zero\u200bwidth',
  '日本語',
  '${HOME}',
  '& | ; >',
  'ends with a backslash \\',
  'x',
  '---',
  '1.',
  '<b>bold</b>',
  'Step',
  'step',
  'criterion',
  'refactor-pending',
];

function makeTitle(rng: Rng, id: number): string {
  if (chance(rng, 0.01)) return `${'x'.repeat(1990)} ${id}`;
  const parts = Array.from({ length: int(rng, 1, 3) }, () => pick(rng, FRAGMENTS));
  parts.splice(int(rng, 0, parts.length), 0, String(id));
  return parts.join(pick(rng, [' ', ' ', ' ', '\t', ' - ']));
}

interface Planted {
  title: string;
  state: StepState;
  line: number;
  criterion: number | null;
}

interface Generated {
  text: string;
  lines: string[];
  steps: Planted[];
  /** Line indexes in the Steps section where a new top-level line may go. */
  slots: number[];
}

function stepLine(rng: Rng, step: Planted): string {
  const bullet = pick(rng, ['-', '-', '-', '*', '+']);
  const afterBullet = chance(rng, 0.9) ? ' ' : pick(rng, ['  ', '\t']);
  const box = step.state === 'todo' ? '[ ]' : chance(rng, 0.8) ? '[x]' : '[X]';
  const afterBox = chance(rng, 0.9) ? ' ' : pick(rng, ['  ', '\t', ' \t']);
  const markers: string[] = [];
  if (step.criterion !== null) {
    markers.push(
      pick(rng, [
        `<!-- criterion: ${step.criterion} -->`,
        `<!--criterion:${step.criterion}-->`,
        `<!-- Criterion : ${step.criterion}  -->`,
      ]),
    );
  }
  if (step.state === 'refactor-pending')
    markers.push(pick(rng, ['<!-- refactor-pending -->', '<!--refactor-pending-->', '<!-- REFACTOR-PENDING -->']));
  if (chance(rng, 0.5)) markers.reverse();
  const tail = markers.map((m) => pick(rng, [' ', ' ', ' ', '  ', '\t', '']) + m).join('');
  const trailing = chance(rng, 0.85) ? '' : pick(rng, [' ', '  ', '\t', ' \t ']);
  return `${bullet}${afterBullet}${box}${afterBox}${step.title}${tail}${trailing}`;
}

function fence(rng: Rng): string[] {
  const char = pick(rng, ['`', '~']);
  const length = int(rng, 3, 5);
  const indent = ' '.repeat(int(rng, 0, 3));
  const info = char === '`' ? pick(rng, ['', 'ts', 'md title']) : pick(rng, ['', 'sh', 'a`b']);
  const body = Array.from({ length: int(rng, 0, 4) }, () =>
    pick(rng, [
      '- [ ] fake step in code',
      '## Steps',
      '# Heading in code',
      '<!--',
      '-->',
      `${char.repeat(length - 1)}`,
      `${char === '`' ? '~~~~~~' : '``````'}`,
      `${char.repeat(length)} not a close`,
      '- [y] malformed but in code',
      '',
    ]),
  );
  const close = `${' '.repeat(int(rng, 0, 3))}${char.repeat(length + int(rng, 0, 2))}${pick(rng, ['', ' ', '\t'])}`;
  return [`${indent}${char.repeat(length)}${info}`, ...body, close];
}

const NOISE: Array<(rng: Rng) => string[]> = [
  () => [''],
  (rng) => [
    pick(rng, [
      '  - [ ] nested note',
      '    - [x] deeper <!-- refactor-pending -->',
      '\t- [] broken but indented',
      '  continuation text',
      '   1. [ ] indented ordered',
    ]),
  ],
  fence,
  (rng) => ['  ```', pick(rng, ['- [ ] hidden in an indented fence', '## Steps', 'text']), '  ```'],
  (rng) =>
    pick(rng, [
      ['<!--', '- [ ] commented out', '## Steps', '-->'],
      ['<!-- one-line comment -->'],
      ['<!-- a', 'b --> trailing'],
    ]),
  (rng) => [pick(rng, ['---', '* * *', '___', '- - -'])],
  (rng) => [
    pick(rng, [
      'Some prose, with - [ ] inside.',
      '*emphasis* at the start',
      '-foo is prose',
      '3.5 apples',
      '+++',
      '#hashtag',
      'Ünïcödé prose 🦀',
    ]),
  ],
  (rng) => [`${'#'.repeat(int(rng, 3, 6))} Phase ${int(rng, 1, 9)}`],
];

function generate(seed: number): Generated {
  const rng = random(seed);
  const lines: string[] = [];
  const steps: Planted[] = [];
  const slots: number[] = [];
  const used = new Set<string>();
  lines.push(pick(rng, ['# Issue 42: parse the config', '# Ledger', 'No heading, just prose.']));
  for (let i = int(rng, 0, 3); i > 0; i--) {
    lines.push(
      ...pick(rng, [
        ['## Context', '- [ ] a checkbox before the section', '- [y] even a malformed one'],
        ['Prose before.'],
        fence(rng),
        ['<!--', '## Steps', '-->'],
        ['### Deeper'],
      ]),
    );
  }
  lines.push(pick(rng, ['## Steps', '## Steps', '##  Steps  ##', '   ## Steps', '##\tSteps']));
  const count = int(rng, 0, 30);
  for (let i = 0; i < count; i++) {
    slots.push(lines.length);
    if (chance(rng, 0.4)) lines.push(...pick(rng, NOISE)(rng));
    let title = makeTitle(rng, i);
    while (used.has(title)) title = `${title} again`;
    used.add(title);
    const state = pick(rng, ['todo', 'todo', 'done', 'refactor-pending'] as const);
    const step: Planted = {
      title,
      state,
      line: lines.length + 1,
      criterion: chance(rng, 0.4) ? int(rng, 1, 12) : null,
    };
    lines.push(stepLine(rng, step));
    steps.push(step);
  }
  slots.push(lines.length);
  if (chance(rng, 0.5)) {
    lines.push(pick(rng, ['## Notes', '# Appendix', '## Done ##']));
    lines.push(
      ...pick(rng, [
        ['- [ ] after the section'],
        ['- [y] malformed after the section is fine'],
        ['1. [ ] ordered after'],
        ['```', '- [ ] an unclosed fence after the section'],
      ]),
    );
  }
  const mode = pick(rng, ['lf', 'crlf', 'mixed'] as const);
  const ending = (): string => (mode === 'lf' ? '\n' : mode === 'crlf' ? '\r\n' : pick(rng, ['\n', '\r\n']));
  let text = lines.map((line, i) => (i < lines.length - 1 ? line + ending() : line)).join('');
  if (chance(rng, 0.7)) text += ending();
  if (chance(rng, 0.05)) text = `\ufeff${text}`;
  return { text, lines, steps, slots };
}

const SEEDS = Array.from({ length: 400 }, (_, i) => 1000 + i);
const byLine = (text: string): string[] => text.split(/(?<=\n)/);
const ending = (line: string | undefined): string => line?.match(/\r?\n$/)?.[0] ?? '';
const rows = (steps: readonly LedgerStep[]): Planted[] =>
  steps.map((s) => ({ title: s.title, state: s.state, line: s.line, criterion: s.criterion }));

const roundTrip = suite('parseLedger + serializeLedger on generated ledgers');

roundTrip('reads back byte for byte, with exactly the planted steps', () => {
  let planted = 0;
  for (const seed of SEEDS) {
    const { text, steps } = generate(seed);
    const ledger = parseLedger(text, `seed-${seed}.md`);
    assert.is(serializeLedger(ledger), text, `seed ${seed}`);
    assert.equal(validateLedger(text), [], `seed ${seed}`);
    assert.equal(rows(ledger.steps), steps, `seed ${seed}`);
    planted += steps.length;
  }
  assert.ok(planted > 4000, `only ${planted} steps planted`);
});

roundTrip('the line reader reads each planted line as planted', () => {
  for (const seed of SEEDS.slice(0, 100)) {
    const { lines, steps } = generate(seed);
    for (const step of steps) {
      const read = readStepLine(lines[step.line - 1] as string);
      assert.ok(read !== null && typeof read !== 'string', `seed ${seed} line ${step.line}: ${String(read)}`);
      assert.is(read.title, step.title);
      assert.is(read.criterion, step.criterion);
      assert.is(read.state, step.state);
    }
  }
});

roundTrip.run();

// ---

const edits = suite('tickStep, setRefactorPending, clearRefactorPending on generated ledgers');

edits('each edit changes one line, keeps its ending, and re-parses to the expected state', () => {
  let done = 0;
  for (const seed of SEEDS) {
    const { text, steps } = generate(seed);
    if (steps.length === 0) continue;
    const rng = random(seed * 7);
    for (let round = 0; round < 3; round++) {
      const target = pick(rng, steps);
      const [edit, next, wrong] =
        target.state === 'todo'
          ? ([tickStep, 'refactor-pending', clearRefactorPending] as const)
          : target.state === 'done'
            ? ([setRefactorPending, 'refactor-pending', tickStep] as const)
            : ([clearRefactorPending, 'done', setRefactorPending] as const);
      const after = edit(text, target.title, 'gen.md');
      const a = byLine(text);
      const b = byLine(after);
      assert.is(b.length, a.length, `seed ${seed}`);
      for (let i = 0; i < a.length; i++) {
        if (i === target.line - 1) {
          assert.is.not(b[i], a[i]);
          assert.is(ending(b[i]), ending(a[i]));
        } else {
          assert.is(b[i], a[i], `seed ${seed}: line ${i + 1} changed editing line ${target.line}`);
        }
      }
      const expected = steps.map((s) => (s === target ? { ...s, state: next } : s));
      assert.equal(rows(parseLedger(after).steps), expected, `seed ${seed}`);
      assert.throws(
        () => wrong(text, target.title),
        (error: unknown) =>
          error instanceof UsageError && (error as Error).message.startsWith(`<stdin>:${target.line}: `),
      );
      done++;
    }
  }
  assert.ok(done > 1000, `only ${done} edits`);
});

edits.run();

// ---

const queries = suite('queries on generated ledgers');

queries('agree with the planted steps, lazily and once the steps are read', () => {
  for (const seed of SEEDS.slice(0, 150)) {
    const { text, steps } = generate(seed);
    const firstOf = (state: StepState): Planted | null => steps.find((s) => s.state === state) ?? null;
    const current = firstOf('refactor-pending') ?? firstOf('todo');
    for (const materialise of [false, true]) {
      const ledger = parseLedger(text);
      if (materialise) assert.is(ledger.steps.length, steps.length);
      assert.equal(currentStep(ledger), current, `seed ${seed}`);
      assert.equal(currentOrLastDone(ledger), current ?? steps.at(-1) ?? null);
      assert.equal(nextUnchecked(ledger), firstOf('todo'));
      assert.equal(nextPendingRefactor(ledger), firstOf('refactor-pending'));
      for (const step of steps) assert.equal(findStep(ledger, step.title), step);
    }
  }
});

queries.run();

// ---

const errors = suite('errors on generated ledgers');

const BAD_LINES: Array<[string, RegExp]> = [
  ['- [] x', /found "\[\]"/],
  ['- [y] x', /found "\[y\]"/],
  ['-[ ] x', /a space between the bullet and the checkbox/],
  ['1. [ ] x', /ordered item/],
  ['- note', /must be a checkbox step/],
  ['- [ ]', /empty title/],
  ['+ [x] \t', /empty title/],
  ['- [x] <!-- refactor-pending -->', /only markers/],
  ['- [ ] unchecked <!-- refactor-pending -->', /unchecked step carries/],
  ['- [x] bad <!-- criterion: 0 -->', /positive integer/],
  ['- [x]glued', /a space after the checkbox/],
  ['- [ ] lone\rcarriage return', /carriage return/],
];

errors('one bad line in the Steps section is reported at its line, by validate and by parse', () => {
  for (const seed of SEEDS) {
    const { lines, steps, slots } = generate(seed);
    const rng = random(seed * 13);
    const slot = pick(rng, slots);
    const before = steps.filter((s) => s.line - 1 < slot);
    const [bad, pattern]: [string, RegExp] =
      before.length > 0 && chance(rng, 0.3)
        ? [`- [ ] ${pick(rng, before).title}`, /duplicate title/]
        : pick(rng, BAD_LINES);
    const text = [...lines.slice(0, slot), bad, ...lines.slice(slot)].join(pick(rng, ['\n', '\r\n']));
    const problems = validateLedger(text, 'bad.md');
    assert.is(problems.length, 1, `seed ${seed}: ${JSON.stringify(problems)}`);
    assert.is(problems[0]?.line, slot + 1, `seed ${seed}`);
    assert.match(problems[0]?.message ?? '', pattern);
    assert.throws(
      () => parseLedger(text, 'bad.md'),
      (error: unknown) => error instanceof FileFormatError && error.line === slot + 1,
    );
  }
});

errors.run();

// ---

const fuzz = suite('the whole scan against the line reader, on random lines');

const TOKENS = [
  '-',
  '*',
  '+',
  ' ',
  ' ',
  '\t',
  '[',
  ']',
  '[ ]',
  '[x]',
  '[X]',
  'x',
  'a',
  'b',
  '>',
  '-->',
  '<!--',
  '\r',
  '1.',
  '🦀',
  '#',
  '`',
  ' <!-- criterion: 2 -->',
  ' <!-- criterion: 12 -->',
  '<!-- criterion: 3 -->',
  ' <!-- criterion: 0 -->',
  ' <!-- criterion: 01 -->',
  ' <!-- refactor-pending -->',
  '<!-- refactor-pending -->',
  ' <!--refactor-pending-->',
];

fuzz('a ledger of random lines scans as the line reader reads each line', () => {
  for (let seed = 1; seed <= Number(process.env.LEDGER_FUZZ_SEEDS ?? 500); seed++) {
    const rng = random(seed);
    const lines = Array.from({ length: int(rng, 1, 40) }, () => {
      const head = pick(rng, ['- [ ] ', '- [x] ', '* [X] ', '+ [ ] ', '- ', '-', '1. ', 'a', '- [ ]', '- [x]']);
      return head + Array.from({ length: int(rng, 0, 6) }, () => pick(rng, TOKENS)).join('');
    });
    const text = `## Steps\n${lines.join(pick(rng, ['\n', '\r\n']))}${pick(rng, ['', '\n'])}`;
    const expectedSteps: Planted[] = [];
    const expectedProblems: Array<{ line: number; message: string }> = [];
    const seen = new Map<string, number>();
    text
      .split('\n')
      .slice(1)
      .forEach((raw, i) => {
        const line = i + 2;
        const read = readStepLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
        if (read === null) return;
        if (typeof read === 'string') {
          expectedProblems.push({ line, message: read });
          return;
        }
        const first = seen.get(read.title);
        if (first !== undefined) {
          expectedProblems.push({
            line,
            message: `duplicate title ${JSON.stringify(read.title)} (first at line ${first})`,
          });
          return;
        }
        seen.set(read.title, line);
        expectedSteps.push({
          title: read.title,
          line,
          criterion: read.criterion,
          state: read.state,
        });
      });
    const problems = validateLedger(text).map(({ line, message }) => ({ line, message }));
    assert.equal(
      problems,
      expectedProblems.sort((a, b) => a.line - b.line),
      `seed ${seed}`,
    );
    if (problems.length === 0) assert.equal(rows(parseLedger(text).steps), expectedSteps, `seed ${seed}`);
  }
});

fuzz.run();

// Queries: list, current, current-or-last-done, next-unchecked, next-pending-refactor; stdin, --issue, --ledger.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import { parseLedger } from '@leap/core/ledger';
import { formatList, formatStep, queryStep } from '../src/cli.js';
import { locateLedger, readLedger } from '../src/input.js';
import { ledger, ledgerText, script, type StepSpec } from './helpers.js';

const STEPS: StepSpec[] = [
  ['done', 'Parse the config'],
  ['refactor-pending', 'Validate the config', 2],
  ['todo', 'Load plugins', 3],
  ['todo', 'Report errors'],
];

// ---
const queryStepSuite = suite('queryStep');

queryStepSuite('answers each query on the parsed ledger', () => {
  const parsed = parseLedger(ledgerText(STEPS), 'x.md');
  assert.is(queryStep(parsed, 'current')?.title, 'Validate the config');
  assert.is(queryStep(parsed, 'current-or-last-done')?.title, 'Validate the config');
  assert.is(queryStep(parsed, 'next-unchecked')?.title, 'Load plugins');
  assert.is(queryStep(parsed, 'next-pending-refactor')?.title, 'Validate the config');
  const allDone = parseLedger(
    ledgerText([
      ['done', 'a'],
      ['done', 'b'],
    ]),
    'y.md',
  );
  assert.is(queryStep(allDone, 'current'), null);
  assert.is(queryStep(allDone, 'current-or-last-done')?.title, 'b');
  assert.is(queryStep(allDone, 'next-unchecked'), null);
  assert.is(queryStep(allDone, 'next-pending-refactor'), null);
});

queryStepSuite.run();

// ---
const formatSuite = suite('formatList and formatStep');

formatSuite('prints STATE<TAB>TITLE lines and JSON lines with line numbers from 1', () => {
  const parsed = parseLedger(ledgerText(STEPS), 'x.md');
  assert.is(
    formatList(parsed.steps, false),
    'done\tParse the config\nrefactor-pending\tValidate the config\ntodo\tLoad plugins\ntodo\tReport errors\n',
  );
  const json = formatList(parsed.steps, true)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(json[1], { state: 'refactor-pending', title: 'Validate the config', line: 8, criterion: 2 });
  assert.equal(Object.keys(json[0] as object), ['state', 'title', 'line', 'criterion']);
  assert.is(formatStep(parsed.steps[2]!, false), 'Load plugins\n');
  assert.is(formatStep(parsed.steps[2]!, true), '{"state":"todo","title":"Load plugins","line":9,"criterion":3}\n');
});

formatSuite.run();

// ---
const sourceSuite = suite('readLedger and locateLedger');
sourceSuite.after.each(cleanupTempDirs);

sourceSuite('reads --ledger, --issue (from the state folder) and stdin', () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'l.md'), ledgerText(STEPS));
  const env = { VERI_STATE_DIR: join(dir, 'state') };
  assert.is(locateLedger({ issue: '12', cwd: dir, env })?.path, join(dir, 'state', 'issue-12.md'));
  assert.is(locateLedger({ cwd: dir, env }), null);
  const fromFile = readLedger({ ledger: 'l.md', cwd: dir, env });
  assert.is(fromFile.file, join(dir, 'l.md'));
  const fromStdin = readLedger({ cwd: dir, env }, () => Buffer.from(ledgerText(STEPS)));
  assert.is(fromStdin.file, '<stdin>');
  assert.is(fromStdin.text, fromFile.text);
  assert.throws(
    () => locateLedger({ issue: 3, ledger: 'l.md', cwd: dir, env }),
    /--issue N or --ledger FILE, not both/,
  );
  assert.throws(() => locateLedger({ ledger: '', cwd: dir, env }), /--ledger FILE to name a file/);
  assert.throws(() => locateLedger({ issue: 'x', cwd: dir, env }), /--issue to be a positive integer, got "x"/);
  assert.throws(
    () => readLedger({ issue: 4, cwd: dir, env }),
    /issue-4\.md: no such file \(expected the ledger of issue 4 \(make one with leap-ledger init --issue 4\)\)/,
  );
  assert.throws(() => readLedger({ ledger: '.', cwd: dir, env }), /is a folder/);
});

sourceSuite('names the line of bytes that are not UTF-8', () => {
  const bad = Buffer.concat([
    Buffer.from('# t\n\n## Steps\n'),
    Buffer.from([0x2d, 0x20, 0x5b, 0x20, 0x5d, 0x20, 0xff, 0x0a]),
  ]);
  assert.throws(() => readLedger({ cwd: makeTempDir() }, () => bad), /<stdin>:4: expected UTF-8 text/);
  const replacement = '# t\n\n## Steps\n- [ ] a \uFFFD b\n';
  assert.is(
    readLedger({ cwd: makeTempDir() }, () => Buffer.from(replacement)).text,
    replacement,
    'a real U+FFFD is text',
  );
  const bom = Buffer.from('\uFEFF# t\n## Steps\n- [ ] a\n');
  assert.is(readLedger({ cwd: makeTempDir() }, () => bom).text.charCodeAt(0), 0xfeff, 'a byte-order mark is kept');
});

sourceSuite.run();

// ---
const binSuite = suite('leap-ledger queries (bin)');
binSuite.after.each(cleanupTempDirs);

binSuite('answers from stdin, --issue and --ledger with the documented exit codes', async () => {
  const dir = makeTempDir();
  const text = ledgerText(STEPS);
  writeFileSync(join(dir, 'l.md'), text);
  const env = { VERI_STATE_DIR: dir };
  writeFileSync(join(dir, 'issue-3.md'), text);
  for (const [command, expected] of [
    ['current', 'Validate the config'],
    ['current-or-last-done', 'Validate the config'],
    ['next-unchecked', 'Load plugins'],
    ['next-pending-refactor', 'Validate the config'],
  ] as const) {
    const piped = await ledger(dir, [command], { input: text, env });
    assert.equal([piped.code, piped.stdout, piped.stderr], [0, `${expected}\n`, ''], command);
    const byIssue = await ledger(dir, [command, '--issue', '3'], { env });
    assert.is(byIssue.stdout, `${expected}\n`);
    const byFile = await ledger(dir, [command, '--ledger', 'l.md', '--json'], { env });
    assert.is((JSON.parse(byFile.stdout) as { title: string }).title, expected);
  }
  const list = await ledger(dir, ['list', '--json'], { input: text, env });
  assert.is(list.stdout.trim().split('\n').length, 4);
  const done = ledgerText([
    ['done', 'a'],
    ['done', 'b'],
  ]);
  for (const command of ['current', 'next-unchecked', 'next-pending-refactor']) {
    const none = await ledger(dir, [command], { input: done, env });
    assert.equal([none.code, none.stdout, none.stderr], [1, '', ''], command);
  }
  const last = await ledger(dir, ['current-or-last-done'], { input: done, env });
  assert.equal([last.code, last.stdout], [0, 'b\n']);
});

binSuite('a malformed ledger: file, line and expectation on stderr, exit 2, nothing on stdout', async () => {
  const dir = makeTempDir();
  const bad = '# t\n\n## Steps\n\n- [ ] fine\n- [y] broken\n';
  const piped = await ledger(dir, ['current'], { input: bad });
  assert.is(piped.code, 2);
  assert.is(piped.stdout, '');
  assert.match(piped.stderr, /^leap-ledger: <stdin>:6: malformed step: expected the checkbox/);
  writeFileSync(join(dir, 'bad.md'), bad);
  const file = await ledger(dir, ['list', '--ledger', 'bad.md']);
  assert.match(file.stderr, new RegExp(`${join(dir, 'bad.md').replace(/[.]/g, '\\.')}:6: `));
  const dup = await ledger(dir, ['current'], { input: '# t\n## Steps\n- [ ] a\n- [ ] a\n' });
  assert.match(dup.stderr, /<stdin>:4: duplicate title "a" \(first at line 3\)/);
});

binSuite('hostile titles print byte for byte, through the bin and the drop-in scripts', async () => {
  const dir = makeTempDir();
  const titles = hostileTitles(24, 11);
  const steps: StepSpec[] = titles.map((t, i) => [i % 3 === 0 ? 'done' : 'todo', t]);
  const text = ledgerText(steps);
  const list = await ledger(dir, ['list'], { input: text });
  assert.is(list.stdout, steps.map(([s, t]) => `${s}\t${t}\n`).join(''));
  const listed = (await script('ledger-steps.sh', dir, ['list', '--json'], { input: text })).stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { title: string }).title);
  assert.equal(listed, titles);
  for (let i = 0; i < titles.length; i += 3) {
    // Each done step in turn is followed by the step in flight.
    const rest = ledgerText(steps.map(([, t], j) => [j <= i ? 'done' : 'todo', t] as StepSpec));
    const expected = titles[i + 1];
    if (expected === undefined) continue;
    assert.is((await ledger(dir, ['current'], { input: rest })).stdout, `${expected}\n`);
    assert.is((await script('next-unchecked.sh', dir, [], { input: rest })).stdout, `${expected}\n`);
    assert.is((await script('ledger-steps.sh', dir, ['current'], { input: rest })).stdout, `${expected}\n`);
  }
  const pending = ledgerText([
    ['refactor-pending', titles[0] as string],
    ['todo', titles[1] as string],
  ]);
  assert.is((await script('next-pending-refactor.sh', dir, [], { input: pending })).stdout, `${titles[0]}\n`);
  assert.is(
    (await script('ledger-steps.sh', dir, ['current-or-last-done'], { input: pending })).stdout,
    `${titles[0]}\n`,
  );
});

binSuite('a 10,000-step ledger is answered from stdin', async () => {
  const steps: StepSpec[] = Array.from(
    { length: 10_000 },
    (_, i) => [i < 9_990 ? 'done' : 'todo', `Step number ${i} with some words`] as StepSpec,
  );
  const result = await ledger(makeTempDir(), ['current'], { input: ledgerText(steps) });
  assert.equal([result.code, result.stdout], [0, 'Step number 9990 with some words\n']);
});

binSuite.run();

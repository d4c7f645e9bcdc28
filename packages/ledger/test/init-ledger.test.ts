// init (a ledger from a plan) and validate (every problem, with its line).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import { validateLedger as validateText } from '@leap/core/ledger';
import { formatProblems } from '../src/cli.js';
import { initLedger } from '../src/files.js';
import { cleanEnv, ledger, readTickEvents, rejects } from './helpers.js';

const PLAN =
  '# Issue 7: config\n\n- [ ] Parse the config (criterion 1)\nValidate it <!-- criterion: 2 -->\nReport errors\n';

// ---
const initSuite = suite('initLedger');
initSuite.after.each(cleanupTempDirs);

initSuite('writes the canonical ledger from a plan, logs init, and refuses to replace one without force', async () => {
  const dir = makeTempDir();
  const env = cleanEnv({ VERI_STATE_DIR: join(dir, 'state') });
  const made = await initLedger({ issue: 7, plan: Buffer.from(PLAN), planFile: 'plan.txt', cwd: dir, env });
  assert.equal(made, { ledger: join(dir, 'state', 'issue-7.md'), steps: 3 });
  assert.is(
    readFileSync(made.ledger, 'utf8'),
    '# Issue 7: config\n\n## Steps\n\n- [ ] Parse the config <!-- criterion: 1 -->\n- [ ] Validate it <!-- criterion: 2 -->\n- [ ] Report errors\n',
  );
  const refused = await rejects(
    () => initLedger({ issue: 7, plan: Buffer.from('T\nother\n'), planFile: 'p', cwd: dir, env }),
    /a ledger exists already .*pass --force/,
  );
  assert.is(refused.exitCode, 2);
  await initLedger({ issue: 7, plan: Buffer.from('T\nother\n'), planFile: 'p', force: true, cwd: dir, env });
  assert.match(readFileSync(made.ledger, 'utf8'), /- \[ \] other\n$/);
  const { readEvents } = await import('@leap/core');
  assert.equal(
    readEvents(join(dir, 'state', 'events.jsonl')).map((r) => [
      r.event.event,
      (r.event as { action?: string }).action,
      r.event.issue,
    ]),
    [
      ['tick', 'init', 7],
      ['tick', 'init', 7],
    ],
  );
});

initSuite('a bad plan names its line and writes nothing', async () => {
  const dir = makeTempDir();
  const env = cleanEnv({ VERI_STATE_DIR: dir });
  await rejects(
    () => initLedger({ ledger: 'l.md', plan: Buffer.from('Title\nsame\nsame\n'), planFile: 'plan.txt', cwd: dir, env }),
    /plan\.txt:3: duplicate step "same" \(first at line 2\)/,
  );
  await rejects(
    () =>
      initLedger({
        ledger: 'l.md',
        plan: Buffer.from('Title\n- [x] done already\n'),
        planFile: 'plan.txt',
        cwd: dir,
        env,
      }),
    /plan\.txt:2: a checked step/,
  );
  await rejects(
    () => initLedger({ ledger: 'l.md', plan: Buffer.from(''), planFile: 'plan.txt', cwd: dir, env }),
    /plan\.txt:1: empty plan/,
  );
  assert.not.ok(existsSync(join(dir, 'l.md')));
  assert.equal(await readTickEvents(dir), []);
});

initSuite.run();

// ---
const validateSuite = suite('validateLedger and formatProblems');

validateSuite('reports every problem with its line; none for a valid ledger', () => {
  const text = '# t\n\n## Steps\n\n- [ ] ok\n- [y] bad box\n- [ ] ok\n- [ ] <!-- criterion: 1 -->\n';
  const problems = validateText(text, 'l.md');
  assert.equal(
    problems.map((p) => [p.file, p.line]),
    [
      ['l.md', 6],
      ['l.md', 7],
      ['l.md', 8],
    ],
  );
  assert.match(
    formatProblems(problems, false),
    /^l\.md:6: malformed step: expected the checkbox .*\nl\.md:7: duplicate title "ok" \(first at line 5\)\nl\.md:8: /,
  );
  assert.equal(JSON.parse(formatProblems(problems, true).split('\n')[1] as string), {
    file: 'l.md',
    line: 7,
    message: 'duplicate title "ok" (first at line 5)',
  });
  assert.equal(validateText('# t\n## Steps\n- [ ] a\n', 'x'), []);
});

validateSuite.run();

// ---
const binSuite = suite('init and validate (bin)');
binSuite.after.each(cleanupTempDirs);

binSuite(
  'init from stdin or --plan with hostile titles reads back byte for byte; validate exits 0, 1 or 2',
  async () => {
    const dir = makeTempDir();
    const titles = hostileTitles(12, 9).filter((t) => !/^\s|\s$/.test(t));
    writeFileSync(join(dir, 'plan.txt'), `Hostile\n${titles.join('\n')}\n`);
    const env = { VERI_STATE_DIR: join(dir, '.tdd') };
    const made = await ledger(dir, ['init', '3', '--plan', 'plan.txt'], { env });
    assert.equal([made.code, made.stdout, made.stderr], [0, `${join(dir, '.tdd', 'issue-3.md')}\n`, '']);
    const list = await ledger(dir, ['list', '--issue', '3'], { env });
    assert.is(list.stdout, titles.map((t) => `todo\t${t}\n`).join(''));
    const piped = await ledger(dir, ['init', '--ledger', 'l.md'], { input: 'T\n- a\n- b (criterion 2)\n', env });
    assert.is(piped.code, 0, piped.stderr);
    const valid = await ledger(dir, ['validate', '--ledger', 'l.md'], { env });
    assert.equal([valid.code, valid.stdout, valid.stderr], [0, '', '']);
    const invalid = await ledger(dir, ['validate', '--json'], {
      input: '# t\n## Steps\n- [] x\n- [ ] y\n- [ ] y\n',
      env,
    });
    assert.is(invalid.code, 1);
    assert.equal(
      invalid.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { line: number }).line),
      [3, 5],
    );
    const missing = await ledger(dir, ['validate', '--ledger', 'nope.md'], { env });
    assert.equal([missing.code, missing.stdout], [2, '']);
    assert.match(missing.stderr, /nope\.md: no such file \(expected a ledger\)/);
    const badPlan = await ledger(dir, ['init', '--ledger', 'new.md'], { input: 'T\n## heading\n', env });
    assert.is(badPlan.code, 2);
    assert.match(badPlan.stderr, /<stdin>:2: a heading is not a step/);
    assert.not.ok(existsSync(join(dir, 'new.md')));
  },
);

binSuite.run();

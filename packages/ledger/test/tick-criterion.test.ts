// tick-criterion: acceptance criterion K of an issue body, by number or by its first line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import { tickCriterionText, tickIssueCriterion } from '../src/files.js';
import { cleanEnv, ledger, readTickEvents, rejects, script } from './helpers.js';

const BODY = `Some context.

## Acceptance criteria

- [ ] The parser accepts "quoted" $values
- [x] Errors name the line
- [ ] It's fast
  continued on a second line

## Notes

- [ ] not a criterion
`;

// ---
const textSuite = suite('tickCriterionText');

textSuite('ticks criterion K, or the criterion whose first line matches, keeping every other byte', () => {
  const byNumber = tickCriterionText(BODY, { criterion: 3 }, 'body.md');
  assert.is(byNumber.body, BODY.replace("- [ ] It's fast", "- [x] It's fast"));
  assert.equal([byNumber.criterion, byNumber.text], [3, "It's fast"]);
  const byText = tickCriterionText(BODY, { match: 'The parser accepts "quoted" $values' }, 'body.md');
  assert.is(byText.criterion, 1);
  assert.is(byText.body, BODY.replace('- [ ] The parser', '- [x] The parser'));
});

textSuite('errors name the file and what was expected', () => {
  assert.throws(
    () => tickCriterionText(BODY, { criterion: 4 }, 'body.md'),
    /body\.md:3: "## Acceptance criteria" has 3 criteria, so no criterion 4/,
  );
  assert.throws(
    () => tickCriterionText(BODY, { criterion: 2 }, 'body.md'),
    /body\.md:6: criterion 2 is already ticked/,
  );
  assert.throws(
    () => tickCriterionText('# no section\n', { criterion: 1 }, 'body.md'),
    /body\.md: no "## Acceptance criteria" section/,
  );
  assert.throws(
    () => tickCriterionText(BODY, { match: 'not fast' }, 'body.md'),
    /body\.md: no acceptance criterion reads "not fast" \(3 criteria/,
  );
  const twice = '## Acceptance criteria\n- [ ] same\n- [ ] same\n';
  assert.throws(
    () => tickCriterionText(twice, { match: 'same' }, 'b.md'),
    /b\.md: 2 acceptance criteria read "same" \(lines 2, 3\); name it by number/,
  );
});

textSuite.run();

// ---
const fileSuite = suite('tickIssueCriterion');
fileSuite.after.each(cleanupTempDirs);

fileSuite('writes --body FILE atomically, or the local tracker file of --issue N, and logs the event', async () => {
  const dir = makeTempDir();
  const env = cleanEnv({ VERI_STATE_DIR: join(dir, '.tdd') });
  writeFileSync(join(dir, 'body.md'), BODY);
  const made = await tickIssueCriterion({ body: 'body.md', choice: { criterion: 1 }, cwd: dir, env });
  assert.equal(made, { file: join(dir, 'body.md'), criterion: 1, text: 'The parser accepts "quoted" $values' });
  assert.match(readFileSync(join(dir, 'body.md'), 'utf8'), /- \[x\] The parser/);
  mkdirSync(join(dir, '.tdd', 'issues'), { recursive: true });
  writeFileSync(join(dir, '.tdd', 'issues', '12.md'), BODY);
  await tickIssueCriterion({ issue: 12, choice: { match: "It's fast" }, cwd: dir, env });
  assert.match(readFileSync(join(dir, '.tdd', 'issues', '12.md'), 'utf8'), /- \[x\] It's fast\n  continued/);
  const events = await readTickEvents(dir);
  assert.equal(
    events.map((e) => [e.action, e.criterion, e.issue, e.title]),
    [
      ['tick-criterion', 1, null, 'The parser accepts "quoted" $values'],
      ['tick-criterion', 3, 12, "It's fast"],
    ],
  );
});

fileSuite('bad calls and bad bodies write nothing', async () => {
  const dir = makeTempDir();
  const env = cleanEnv({ VERI_STATE_DIR: join(dir, '.tdd') });
  writeFileSync(join(dir, 'body.md'), '# nothing here\n');
  await rejects(
    () => tickIssueCriterion({ body: 'body.md', choice: { criterion: 1 }, cwd: dir, env }),
    /no "## Acceptance criteria" section/,
  );
  assert.is(readFileSync(join(dir, 'body.md'), 'utf8'), '# nothing here\n');
  await rejects(
    () => tickIssueCriterion({ body: 'body.md', issue: 3, choice: { criterion: 1 }, cwd: dir, env }),
    /--body FILE or --issue N, not both/,
  );
  await rejects(
    () => tickIssueCriterion({ choice: { criterion: 1 }, cwd: dir, env }),
    /expected --body FILE, or --issue N/,
  );
  await rejects(
    () => tickIssueCriterion({ issue: 5, choice: { criterion: 1 }, cwd: dir, env }),
    /issues\/5\.md: no such file \(expected the local tracker's issue 5\)/,
  );
});

fileSuite.run();

// ---
const binSuite = suite('tick-criterion (bin and tick-issue-criterion.sh)');
binSuite.after.each(cleanupTempDirs);

binSuite('K, N K and --match, with hostile criterion texts; exit codes', async () => {
  const dir = makeTempDir();
  const texts = hostileTitles(6, 3);
  const body = `## Acceptance criteria\n\n${texts.map((t) => `- [ ] ${t}`).join('\n')}\n`;
  writeFileSync(join(dir, 'body.md'), body);
  mkdirSync(join(dir, '.tdd', 'issues'), { recursive: true });
  writeFileSync(join(dir, '.tdd', 'issues', '4.md'), body);
  const env = { VERI_STATE_DIR: join(dir, '.tdd') };
  const one = await ledger(dir, ['tick-criterion', '2', '--body', 'body.md'], { env });
  assert.equal([one.code, one.stdout, one.stderr], [0, '', '']);
  const two = await script('tick-issue-criterion.sh', dir, ['4', '3'], { env });
  assert.is(two.code, 0, two.stderr);
  const three = await script('tick-issue-criterion.sh', dir, ['4', '--match', texts[4] as string], { env });
  assert.is(three.code, 0, three.stderr);
  assert.is(readFileSync(join(dir, 'body.md'), 'utf8'), body.replace(`- [ ] ${texts[1]}`, `- [x] ${texts[1]}`));
  const issue = readFileSync(join(dir, '.tdd', 'issues', '4.md'), 'utf8');
  assert.ok(
    issue.includes(`- [x] ${texts[2]}\n`) &&
      issue.includes(`- [x] ${texts[4]}\n`) &&
      issue.includes(`- [ ] ${texts[0]}\n`),
  );
  const again = await ledger(dir, ['tick-criterion', '4', '3'], { env });
  assert.equal([again.code, again.stdout], [2, '']);
  assert.match(again.stderr, /criterion 3 is already ticked/);
  const neither = await ledger(dir, ['tick-criterion', '--body', 'body.md'], { env });
  assert.match(neither.stderr, /expected the criterion number K or --match TEXT/);
  const zero = await ledger(dir, ['tick-criterion', '0', '--body', 'body.md'], { env });
  assert.match(zero.stderr, /the criterion number K to be a positive integer, got "0"/);
});

binSuite.run();

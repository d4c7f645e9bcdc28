import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FileFormatError } from '../src/errors.js';
import { parseLedger, validateLedger } from '../src/ledger/index.js';

const validate = suite('validateLedger');

validate('returns [] for a good ledger, whatever it holds around the steps', () => {
  assert.equal(validateLedger('# T\n\n## Steps\n\n- [ ] a\n- [x] b <!-- refactor-pending -->\n## Notes\n```\n'), []);
});

validate('returns every problem, in line order, with the file name', () => {
  const text = [
    '# T', //                                        1
    '## Steps', //                                   2
    '- [ ] a', //                                    3
    '- [] b', //                                     4
    '- [ ] a', //                                    5
    '- [ ]', //                                      6
    '1. [ ] c', //                                   7
    '- [ ] d <!-- refactor-pending -->', //          8
    '## Steps', //                                   9
    '-[x] e', //                                     10
    '- [x] f <!-- criterion: x -->', //              11
    '~~~', //                                        12
    '- [ ] hidden',
  ].join('\r\n');
  const problems = validateLedger(text, 'issue-9.md');
  assert.equal(
    problems.map((p) => p.line),
    [4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
  assert.ok(problems.every((p) => p.file === 'issue-9.md'));
  assert.match(problems[1]?.message ?? '', /duplicate title "a" \(first at line 3\)/);
});

validate('reports a missing section at line 1 and defaults the file to <stdin>', () => {
  assert.equal(validateLedger('# T\n'), [
    {
      file: '<stdin>',
      line: 1,
      message: 'no "## Steps" heading: a ledger lists its steps under a level-2 heading "## Steps"',
    },
  ]);
});

validate('agrees with parseLedger: parse throws exactly the first problem', () => {
  const texts = [
    '## Steps\n- [ ] a\n- [ ] a\n- [y] b\n',
    '# T\n',
    '## Steps\n```\n',
    '## Steps\n- [ ] ok\n',
    '## Steps\n- [x] a <!-- criterion: 1 --> <!-- criterion: 1 -->\n',
  ];
  for (const text of texts) {
    const problems = validateLedger(text, 'f.md');
    let thrown: FileFormatError | null = null;
    try {
      parseLedger(text, 'f.md');
    } catch (error) {
      thrown = error as FileFormatError;
    }
    if (problems.length === 0) {
      assert.is(thrown, null);
    } else {
      assert.instance(thrown, FileFormatError);
      assert.is(thrown?.line, problems[0]?.line);
      assert.is(thrown?.message, `f.md:${problems[0]?.line}: ${problems[0]?.message}`);
    }
  }
});

validate.run();

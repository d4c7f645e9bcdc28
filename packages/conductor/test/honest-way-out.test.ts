// The honest way out (issue 40 section 3): a developer whose last line is {"blocked": "REASON"}, in any phase, or a
// verifier answering BLOCKED, stops the step with a needs-user bail quoting REASON byte for byte: no revision is
// spent, every commit made is kept, and running again goes on from there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { BLOCKED_SENTENCE } from '@leap/verify';
import { runTdd } from '../src/index.js';
import { BLOCKED_LINE } from '../src/prompts.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  makeProject,
  oneStepRun,
  pass,
  readEvents,
  receivedPrompt,
  redTest,
  scriptedAgents,
  subjects,
} from './helpers.js';

const way = suite('runTdd: the honest way out');
way.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';
// Quotes, a dollar, backticks, a newline escape and non-ASCII: quoted byte for byte.
const REASON = 'The test wants "Ünïcode" $HOME `kept`, criterion 1 says ASCII only';
const blocked = (reason: string) => `I read the test and the issue.\n${JSON.stringify({ blocked: reason })}\n`;

way(
  'a developer blocked at green: needs-user quoting the reason, no revision, the red commit kept, the half-done work preserved',
  async () => {
    const repo = makeProject();
    const developer = [
      { edits: [redTest(1, TEST1)], answer: 'Wrote the failing test.' },
      { edits: [{ path: 'src/slug.js', content: '// half done\n' }], answer: blocked(REASON) },
    ];
    const agents = scriptedAgents(developer, [pass('The test is right.')]);
    const result = await runTdd(oneStepRun(repo, agents.file));
    assert.is(result.code, 1);
    assert.equal(result.bail?.cause, 'needs-user');
    assert.is(result.bail?.class, 'process');
    assert.match(
      result.bail?.narration ?? '',
      `The developer leaf develop-green says step 1 "${TITLE}" cannot be done as written:\n${REASON}\n`,
    );
    assert.match(result.bail?.narration ?? '', 'No revision was spent and every commit made is kept');
    // The thread and the bail event quote it too; the thread's last line is the bail's.
    const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
    assert.match(thread, REASON);
    assert.match(thread.trimEnd(), /bail: needs-user \(process\)$/);
    const bail = readEvents(repo).find((e) => e.event === 'bail');
    assert.match(String(bail?.message), REASON);
    // No revision: two developer leaves (red, green), no develop-green-2.
    assert.is(existsSync(join(repo, '.tdd', 'develop-green-2.out')), false);
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`]);
    assert.is(git(repo, 'status', '--porcelain', '--untracked-files=no'), '', 'the half-done work is reverted');
    assert.match(
      git(repo, 'for-each-ref', '--format=%(refname)', 'refs/leap/'),
      /attempt/,
      'and kept in an attempt ref',
    );
    // Running again resumes at that green, from the red commit (the answer is the user's to give, here a new move).
    const again = scriptedAgents(
      [
        { edits: [{ path: 'src/slug.js', content: IMPL1 }], answer: 'Implemented.' },
        { edits: [{ path: 'src/slug.js', content: REFACTORED1 }], answer: 'Refactored.' },
      ],
      [pass(), pass()],
    );
    const resumed = await runTdd({ ...oneStepRun(repo, again.file), planFile: undefined });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  },
);

way(
  'a developer blocked at red, and one that says it in the middle of its output: only a last line counts',
  async () => {
    const repo = makeProject();
    const agents = scriptedAgents([{ edits: [], answer: blocked('A dependency is missing: libfoo') }], []);
    const result = await runTdd(oneStepRun(repo, agents.file));
    assert.is(result.bail?.cause, 'needs-user');
    assert.match(result.bail?.narration ?? '', 'develop-red says step 1');
    assert.match(result.bail?.narration ?? '', 'A dependency is missing: libfoo');
    assert.equal(subjects(repo), ['plan: issue 1']);
    // Not the last line (or not the object alone): an ordinary answer, the phase goes on.
    const other = makeProject();
    const quoted = `${JSON.stringify({ blocked: 'just quoting the format' })}\nWrote the test anyway.`;
    const goes = scriptedAgents(
      [
        { edits: [redTest(1, TEST1)], answer: quoted },
        { edits: [{ path: 'src/slug.js', content: IMPL1 }], answer: '{"blocked": ""}' },
        { edits: [], answer: '{"blocked": "x", "more": 1}' },
      ],
      [pass(), pass(), pass()],
    );
    const done = await runTdd(oneStepRun(other, goes.file));
    assert.is(done.code, 0, JSON.stringify(done.bail));
  },
);

way(
  'a verifier answering BLOCKED about a red test: needs-user quoting it, the red commit kept and verified again on a resume',
  async () => {
    const repo = makeProject();
    const why = 'This test cannot pass without breaking criterion 1: it wants "Hello" kept upper-case';
    const developer = [
      { edits: [redTest(1, TEST1)], answer: 'Wrote the failing test.' },
      { edits: [{ path: 'src/slug.js', content: IMPL1 }], answer: 'Implemented.' },
      { edits: [{ path: 'src/slug.js', content: REFACTORED1 }], answer: 'Refactored.' },
    ];
    const agents = scriptedAgents(developer, [{ answer: { verdict: 'BLOCKED', reason: why } }, pass(), pass(), pass()]);
    const result = await runTdd(oneStepRun(repo, agents.file));
    assert.is(result.bail?.cause, 'needs-user');
    assert.match(
      result.bail?.narration ?? '',
      `The verifier of the red phase says step 1 "${TITLE}" cannot be done as written:\n${why}\n`,
    );
    assert.equal(
      result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red BLOCKED'],
    );
    assert.equal(
      readEvents(repo)
        .filter((e) => e.event === 'verdict')
        .map((e) => [e.verdict, e.code, e.reason]),
      [['BLOCKED', 1, why]],
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`], 'the red commit stays');
    // Its verifier's prompt offered the way out in one sentence; the developer's did too.
    assert.match(receivedPrompt(agents.dir, 'ver', 0), BLOCKED_SENTENCE);
    assert.match(receivedPrompt(agents.dir, 'dev', 0), BLOCKED_LINE);
    const resumed = await runTdd({ ...oneStepRun(repo, agents.file), planFile: undefined });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(
      resumed.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['red PASS', 'green PASS', 'refactor PASS'],
      'the kept red is verified again, never taken as passed',
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  },
);

way.run();

// A REJECT goes to a revision leaf with the verifier's reason; the revision budget; more steps and criteria.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  makeProject,
  pass,
  planFile,
  readEvents,
  receivedPrompt,
  reject,
  scriptedAgents,
  stepMoves,
  subjects,
} from './helpers.js';

const revisions = suite('runTdd: revisions');
revisions.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

revisions('a REJECT sends the reason to develop-green-2, and the run goes on to done', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const revised = {
    edits: [{ path: 'src/slug.js', content: `// slugify: titles to URL slugs\n${IMPL1}` }],
    answer: 'Documented it.',
  };
  const agents = scriptedAgents(
    [red!, green!, revised, refactor!],
    [pass(), reject("Say what slugify is for: it's $undocumented `x`"), pass(), pass()],
  );
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile([TITLE]),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(
    result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
    ['red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
  );
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  const prompt = receivedPrompt(agents.dir, 'dev', 2);
  assert.match(prompt, '## Revision 1');
  assert.match(prompt, "Say what slugify is for: it's $undocumented `x`");
  const leaves = readEvents(repo)
    .filter((e) => e.event === 'launch')
    .map((e) => `${e.leaf} ${e.attempt}`);
  assert.equal(leaves, [
    'develop-red 1',
    'verify-red 1',
    'develop-green 1',
    'verify-green 1',
    'develop-green-2 2',
    'verify-green 1',
    'develop-refactor 1',
    'verify-refactor 1',
  ]);
  assert.match(git(repo, 'show', `HEAD~1:src/slug.js`), '// slugify: titles to URL slugs');
});

revisions('a rejected red is taken back and revised: still one red commit per step', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const agents = scriptedAgents(
    [red!, red!, green!, refactor!],
    [reject('The test does not pin the dashes.'), pass(), pass(), pass()],
  );
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile([TITLE]),
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  assert.match(receivedPrompt(agents.dir, 'dev', 1), 'The test does not pin the dashes.');
});

revisions(
  'a spent revision budget bails revision-budget: the half-done step is kept in a ref and reverted',
  async () => {
    const repo = makeProject();
    const [red, green] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const agents = scriptedAgents([red!, green!, green!], [pass(), reject('first no'), reject('second no')]);
    const lines: string[] = [];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      revisions: 1,
      env: cleanEnv(),
      progress: (l) => lines.push(l),
    });
    assert.is(result.code, 1);
    assert.is(result.bail?.cause, 'revision-budget');
    assert.is(result.bail?.class, 'process');
    assert.match(result.bail?.narration ?? '', 'second no');
    assert.is(lines.at(-1)?.split('\n').at(-1), 'bail: revision-budget (process)');
    assert.equal(subjects(repo), ['plan: issue 1']);
    assert.is(git(repo, 'status', '--porcelain'), '');
    assert.is(
      readFileSync(join(repo, 'src/slug.js'), 'utf8'),
      'export function slugify(title) {\n  return title;\n}\n',
    );
    const refs = git(repo, 'for-each-ref', '--format=%(refname)', 'refs/leap/attempts/').trim().split('\n');
    assert.is(refs.length, 1);
    assert.match(git(repo, 'show', `${refs[0]}:src/slug.js`), 'toLowerCase');
    // leap tdd status says the run bailed, and why, until a leaf is launched again.
    const { formatTddStatus, readTddStatus } = await import('../src/status.js');
    const status = readTddStatus({ cwd: repo, env: cleanEnv(), issue: 1 });
    assert.is(status[0]?.bail?.cause, 'revision-budget');
    assert.match(formatTddStatus(status), /\n  bailed: revision-budget \(process\): The green phase of step 1/);
    assert.match(git(repo, 'show', `${refs[0]}:test/step1.test.js`), 'hello-big-world');
    const bail = readEvents(repo).filter((e) => e.event === 'bail');
    assert.equal(
      bail.map((e) => [e.cause, e.class, e.step]),
      [['revision-budget', 'process', TITLE]],
    );
    assert.is(bail[0]?.message, result.bail?.narration, 'the bail event holds the narration');
    assert.match(readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8'), 'bail: revision-budget (process)');
    assert.equal(result.steps, [{ title: TITLE, state: 'todo' }]);
  },
);

revisions(
  'three criteria, three steps, a ground-truth REJECT on the way: each criterion ticked in its refactor commit',
  async () => {
    const repo = makeProject(['one', 'two', 'three']);
    const titles = ['First step', 'Second step', 'Third step'];
    const IMPL2 =
      "export function slugify(title) {\n  return title.toLowerCase().replace(/'/g, '').split(/[^\\p{L}\\p{N}]+/u).filter(Boolean).join('-');\n}\n";
    const IMPL3 = IMPL2.replace(".join('-');", ".join('-').slice(0, 20);");
    const tests = [
      TEST1,
      "test('drops punctuation', () => assert.equal(slugify(\"It's x!\"), 'its-x'));",
      "test('at most 20', () => assert.equal(slugify('a'.repeat(30)), 'a'.repeat(20)));",
    ];
    const impls = [IMPL1, IMPL2, IMPL3];
    const moves: object[] = [];
    const verdicts: object[] = [];
    titles.forEach((_, i) => {
      const [red, green, refactor] = stepMoves(i + 1, tests[i]!, impls[i]!, `${impls[i]}// step ${i + 1}\n`);
      // Step 2's first green changes nothing: the ground truth rejects it before the verifier agent is asked.
      if (i === 1) moves.push(red!, { answer: 'Nothing to change.' }, green!, refactor!);
      else moves.push(red!, green!, refactor!);
      verdicts.push(pass(), pass(), pass());
    });
    const agents = scriptedAgents(moves, verdicts);
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile(titles),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.is(subjects(repo).length, 10);
    const ground = result.verdicts.filter((v) => v.verdict === 'REJECT');
    assert.is(ground.length, 1);
    assert.match(ground[0]!.reason, 'ground truth: the suite fails');
    for (let k = 1; k <= 3; k++) {
      const body = git(repo, 'show', `HEAD~${(3 - k) * 3}:.tdd/issues/1.md`);
      assert.is((body.match(/- \[x\]/g) ?? []).length, k);
    }
  },
);

revisions.run();

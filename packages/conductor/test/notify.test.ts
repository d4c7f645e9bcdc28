// --notify (CONTRACT section 14): on done, bail, stop and cost-budget the user's command runs, argv only, with the
// event as JSON on stdin; it is recorded with the run's options (a resume keeps it); its failure is narrated and
// never changes the run's result.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, hostileTitles, makeTempDir } from '@leap/test-utils';
import { splitNotify } from '@leap/supervise';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  fixture,
  makeProject,
  pass,
  planFile,
  readEvents,
  reject,
  scriptedAgents,
  stepMoves,
} from './helpers.js';

const notify = suite('runTdd --notify');
notify.after.each(cleanupTempDirs);

const recorder = fixture('notify-recorder.mjs');
type Told = { argv: string[]; stdin: string; cwd: string };
const told = (file: string): Told[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Told)
    : [];

notify(
  'done: the command gets the event as JSON on stdin, its argv byte for byte and never through a shell',
  async () => {
    const title = (hostileTitles(1, 7)[0] as string).replace(/[\r\n]/g, ' ').trim();
    const repo = makeProject(['slugify lowercases the words and joins them with dashes'], 1, title);
    const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [pass(), pass(), pass()]);
    const dir = makeTempDir('leap-notify-');
    const record = join(dir, 'told.jsonl');
    const planted = join(dir, 'planted');
    const lines: string[] = [];
    const argv = [process.execPath, recorder, record, `$(touch ${planted})`, "it's `x` é"];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile(['First step']),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
      notify: argv,
      progress: (l) => lines.push(l),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    const [one, ...more] = told(record);
    assert.equal(more, [], 'told once');
    assert.equal(one?.argv, argv.slice(3));
    assert.not.ok(existsSync(planted), 'no shell ran the argument');
    const event = JSON.parse(one?.stdin ?? '{}') as Record<string, unknown>;
    assert.is(event.event, 'done');
    assert.is(event.issue, 1);
    assert.is(event.title, title, 'the title byte for byte');
    assert.is(event.branch, 'leap/issue-1');
    assert.is(event.outcome, 'done');
    assert.is(event.code, 0);
    assert.is(event.commits, 4);
    assert.match(lines.join('\n'), /notify: done told \(leaf notify-done-\d+\)/);
    // Supervised: a leaf of its own, with its launch and exit events.
    assert.ok(
      readEvents(repo).some((e) => e.event === 'exit' && String(e.leaf).startsWith('notify-done-') && e.code === 0),
    );
  },
);

notify('bail and stop are told; the option is recorded, so a resume given no --notify tells its done too', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const dir = makeTempDir('leap-notify-');
  const record = join(dir, 'told.jsonl');
  const argv = [process.execPath, recorder, record];
  // A bail: the green is rejected past its one revision.
  const bailing = scriptedAgents([red!, green!, green!], [pass(), reject('first no'), reject('second no')]);
  const base = {
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    developer: 'dev',
    verifier: 'ver',
    revisions: 1,
    env: cleanEnv(),
  };
  const bailed = await runTdd({ ...base, planFile: planFile(['First step']), agentsFile: bailing.file, notify: argv });
  assert.is(bailed.code, 1);
  const bailEvent = JSON.parse(told(record)[0]?.stdin ?? '{}') as {
    event: string;
    bail: { cause: string; class: string };
  };
  assert.is(bailEvent.event, 'bail');
  assert.equal([bailEvent.bail.cause, bailEvent.bail.class], ['revision-budget', 'process']);
  // A stop at the next boundary, on the resume (no --notify: the recorded one).
  writeFileSync(join(repo, '.tdd', 'stop'), 'now\n');
  const passing = scriptedAgents([red!, green!, refactor!], [pass(), pass(), pass()]);
  const stopped = await runTdd({ ...base, agentsFile: passing.file });
  assert.is(stopped.code, 3, JSON.stringify(stopped));
  const stopEvent = JSON.parse(told(record)[1]?.stdin ?? '{}') as { event: string; stopped_at: string };
  assert.is(stopEvent.event, 'stop');
  assert.ok(stopEvent.stopped_at.length > 0);
  const done = await runTdd({ ...base, agentsFile: passing.file });
  assert.is(done.code, 0, JSON.stringify(done.bail));
  assert.equal(
    told(record).map((t) => (JSON.parse(t.stdin) as { event: string }).event),
    ['bail', 'stop', 'done'],
  );
});

notify(
  "a notify command that fails or is not there: narrated with where its words are, the run's result stands",
  async () => {
    for (const argv of [
      [process.execPath, recorder, join(makeTempDir('leap-notify-'), 'told.jsonl'), '--fail'],
      [join(makeTempDir('leap-notify-'), 'no-such-command')],
    ]) {
      const repo = makeProject();
      const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [pass(), pass(), pass()]);
      const lines: string[] = [];
      const result = await runTdd({
        cwd: repo,
        issue: 1,
        testCmd: TEST_CMD,
        planFile: planFile(['First step']),
        developer: 'dev',
        verifier: 'ver',
        agentsFile: agents.file,
        env: cleanEnv(),
        notify: argv,
        progress: (l) => lines.push(l),
      });
      assert.is(result.code, 0, JSON.stringify(result.bail));
      assert.is(result.outcome, 'done');
      const said = lines.find((l) => l.startsWith('notify: ')) ?? '';
      assert.match(
        said,
        /^notify: the notify command "[^"]+" failed: .*; its output is in .*notify-done-\d+\.err \(the run's result stands\)$/,
        lines.join('\n'),
      );
      if (argv.includes('--fail'))
        assert.match(
          readFileSync(said.replace(/^.*its output is in (.*) \(the run's result stands\)$/, '$1'), 'utf8'),
          /the webhook said 500/,
        );
    }
  },
);

notify('splitNotify: on spaces into an argv, no quoting; an empty command is bad input', () => {
  assert.equal(splitNotify('curl -sS --data-binary @- https://hooks.example/leap'), [
    'curl',
    '-sS',
    '--data-binary',
    '@-',
    'https://hooks.example/leap',
  ]);
  assert.equal(splitNotify('  a   $(b)  '), ['a', '$(b)']);
  assert.throws(() => splitNotify('   '), /Expected --notify to be a command line/);
});

notify.run();

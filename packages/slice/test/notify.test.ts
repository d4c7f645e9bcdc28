// leap slice run --notify CMD (CONTRACT section 14): the end of the run told to the user's command, argv only,
// the event as JSON on stdin; a command that fails is said and the run's result stands.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { ball, contentProof, leapSlice, setupRepo, writeAgents, writeSlice } from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };
const notify = suite('leap slice run --notify');
notify.after.each(cleanupTempDirs);

// A recorder in a folder without spaces (--notify splits on spaces): it appends its argv and stdin to its first argument.
function recorder(): { script: string; record: string } {
  const dir = makeTempDir('leap-notify-');
  const script = join(dir, 'record.mjs');
  writeFileSync(
    script,
    "import { appendFileSync, readFileSync } from 'node:fs';\nconst [file, ...rest] = process.argv.slice(2);\nappendFileSync(file, JSON.stringify({ argv: rest, stdin: readFileSync(0, 'utf8') }) + '\\n');\nif (rest.includes('--fail')) process.exit(9);\n",
  );
  return { script, record: join(dir, 'told.jsonl') };
}
const told = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { argv: string[]; stdin: string })
    : [];

notify(
  'done and bail are told with the slice, its receipt and each ball; the words of CMD are its argv, no shell',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const { script, record } = recorder();
    const planted = join(dir, 'planted');
    const file = writeSlice(dir, {
      id: 'told',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const cmd = `${process.execPath} ${script} ${record} $(touch${'\t'}${planted}) \`id\``;
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
      '--notify',
      cmd,
    ]);
    assert.is(out.code, 0, out.stderr);
    const [done] = told(record);
    assert.equal(done?.argv, [`$(touch${'\t'}${planted})`, '`id`']);
    assert.not.ok(existsSync(planted));
    const event = JSON.parse(done?.stdin ?? '{}') as {
      event: string;
      slice: string;
      receipt: number;
      balls: { id: string; receipt: number }[];
    };
    assert.equal([event.event, event.slice, event.receipt], ['done', 'told', 1]);
    assert.equal(
      event.balls.map((b) => [b.id, b.receipt]),
      [['a', 1]],
    );
    assert.match(out.stderr, /leap slice: notify: done told \(leaf notify-done-\d+\)/);

    // A refused ball: bail.
    const { repo: repo2, dir: dir2 } = setupRepo(BASE);
    const file2 = writeSlice(dir2, {
      id: 'no',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents2 = writeAgents(dir2, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const refused = await leapSlice(repo2, [
      'run',
      file2,
      '--agents',
      agents2,
      '--builder',
      'b',
      '--reviewers',
      'r1,refuser',
      '--notify',
      `${process.execPath} ${script} ${record}`,
    ]);
    assert.is(refused.code, 1, refused.stderr);
    assert.is((JSON.parse(told(record)[1]?.stdin ?? '{}') as { event: string }).event, 'bail');
  },
);

notify("a notify command that fails: said, with where its words are; the run's exit code stands", async () => {
  const { repo, dir } = setupRepo(BASE);
  const { script, record } = recorder();
  const file = writeSlice(dir, {
    id: 'fails',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
  });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  const out = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'b',
    '--reviewers',
    'r1,r2',
    '--notify',
    `${process.execPath} ${script} ${record} --fail`,
  ]);
  assert.is(out.code, 0, out.stderr);
  assert.match(
    out.stderr,
    /leap slice: notify: the notify command "[^"]+" failed: .*exit 9.*; its output is in .*notify-done-\d+\.err \(the run's result stands\)/,
  );
  const bad = await leapSlice(repo, ['run', file, '--notify', '   ']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /Expected --notify to be a command line/);
});

notify(
  'leap.config.json\'s "notify" (an argv: an element with spaces stays one) when no --notify is given; a bad file is bad input',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const { script, record } = recorder();
    writeFileSync(
      join(repo, 'leap.config.json'),
      `${JSON.stringify({ notify: [process.execPath, script, record, 'one word with spaces'] })}\n`,
    );
    const file = writeSlice(dir, {
      id: 'conf',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(out.code, 0, out.stderr);
    const [got] = told(record);
    assert.equal(got?.argv, ['one word with spaces']);
    assert.is((JSON.parse(got?.stdin ?? '{}') as { event: string }).event, 'done');
    writeFileSync(join(repo, 'leap.config.json'), '{ "notify": "not an argv" }\n');
    const bad = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /leap\.config\.json:1:3: "notify"/);
  },
);

notify.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo, makeTempDir } from '@leap/test-utils';
import {
  answerText,
  applyEdits,
  claimNextMove,
  commitAll,
  movePromptFile,
  scriptStateDir,
} from '../src/replay-move.js';
import { replayNextMove as replay } from '../src/replay.js';

// ---
const replayer = suite('replayNextMove (in process)');
replayer.after(cleanupTempDirs);
replayer('replays moves in order: edits, commit, answer, exit code; then no move left (3)', () => {
  const repo = makeGitRepo();
  const scriptFile = join(makeTempDir(), 'moves.json');
  const prompt = hostileTitles(3, 2).join('\n');
  writeFileSync(
    scriptFile,
    JSON.stringify({
      family: 'replayed',
      moves: [
        { edits: [{ path: 'test/a.test.js', content: 'red\n' }], commit: "red: it's $(x)", answer: 'wrote it' },
        {
          edits: [{ path: 'test/a.test.js', delete: true }],
          answer: { verdict: 'PASS', reason: 'ok' },
          stderr: 'note\n',
          exit: 4,
          sleep_ms: 5,
        },
        { answer: 'stuck', hang: true },
      ],
    }),
  );
  const first = replay(scriptFile, prompt, repo);
  assert.equal(first, { code: 0, stdout: 'wrote it', stderr: '', hang: false, sleepMs: 0, waitFor: null, index: 0 });
  assert.is(readFileSync(join(repo, 'test/a.test.js'), 'utf8'), 'red\n');
  assert.is(git(repo, 'log', '-1', '--format=%s').trim(), "red: it's $(x)");
  assert.is(readFileSync(movePromptFile(scriptFile, 0), 'utf8'), prompt, 'the prompt is recorded byte for byte');
  const second = replay(scriptFile, 'p2', repo);
  assert.equal(
    [second.code, second.stdout, second.stderr, second.sleepMs, second.index],
    [4, '{"verdict":"PASS","reason":"ok"}', 'note\n', 5, 1],
  );
  assert.not.ok(existsSync(join(repo, 'test/a.test.js')));
  assert.is(replay(scriptFile, 'p3', repo).hang, true);
  const none = replay(scriptFile, 'p4', repo);
  assert.equal([none.code, none.index], [3, null]);
  assert.match(none.stderr, /no move left .* \(3 replayed\)/);
  assert.ok(existsSync(scriptStateDir(scriptFile)));
});
replayer.run();

// ---
const pieces = suite('claimNextMove, applyEdits, commitAll, answerText');
pieces.after(cleanupTempDirs);
pieces('a claimed move is never claimed again, even by another reader of the script', () => {
  const scriptFile = join(makeTempDir(), 's.json');
  const script = { family: null, moves: [{ answer: 'a' }, { answer: 'b' }] };
  assert.is(claimNextMove(scriptFile, script, 'x')?.index, 0);
  assert.is(claimNextMove(scriptFile, script, 'y')?.index, 1);
  assert.is(claimNextMove(scriptFile, script, 'z'), null);
});
pieces('edits outside the folder are refused before anything changes', () => {
  const dir = makeTempDir();
  for (const path of ['../escape.txt', '/etc/passwd', 'a/../../b']) {
    assert.throws(
      () =>
        applyEdits(dir, [
          { path: 'inside.txt', content: 'x' },
          { path, content: 'y' },
        ]),
      /inside the working folder/,
    );
    assert.not.ok(existsSync(join(dir, 'inside.txt')), 'the valid edit before it was not applied either');
  }
  applyEdits(dir, [
    { path: 'deep/er/f.txt', content: 'é' },
    { path: 'missing.txt', delete: true },
  ]);
  assert.is(readFileSync(join(dir, 'deep/er/f.txt'), 'utf8'), 'é');
});
pieces('commitAll reports git refusing, with its message', () => {
  const notRepo = makeTempDir();
  assert.throws(() => commitAll(notRepo, 'm'), /git commit in .* failed: .*not a git repository/i);
  const repo = makeGitRepo();
  assert.throws(() => commitAll(repo, 'nothing to commit'), /git commit in .* failed/);
});
pieces('answerText: strings as is, values as JSON, nothing when absent', () => {
  assert.is(answerText({ answer: 'x' }), 'x');
  assert.is(answerText({ answer: [1] }), '[1]');
  assert.is(answerText({}), '');
});
pieces.run();

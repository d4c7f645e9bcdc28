// Each real CLI as a developer and as a read-only role, launched the way the conductor and leap-verify
// launch it: the plugin's invocation under @leap/verify's runAgentLeaf (supervised, usage recorded).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, startModelServer } from '@leap/test-utils';
import { runAgentLeaf } from '@leap/verify';
import { CLI_NAMES, cleanupHomes, privateHome } from './clis.js';
import { plugin } from './plugin.js';
import {
  HOSTILE_LINE,
  SOURCE_MARK,
  makeProject,
  readEvents,
  readerTurns,
  sentBack,
  writerTurns,
} from './fixture-repo.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

for (const cli of CLI_NAMES) {
  test(`${cli} as a developer writes a file, reads one, runs a command, and ends with its answer; the usage event is the server's count`, async () => {
    const repo = makeProject();
    const stateDir = makeTempDir('leap-real-agents-state-');
    const hostile = HOSTILE_LINE;
    const server = await startModelServer({ script: writerTurns(repo, `done by ${cli}`) });
    try {
      const { env } = privateHome(cli, server, { codexLogin: true });
      const leaf = await runAgentLeaf({
        name: 'develop-green',
        agent: plugin(cli),
        prompt: 'Add sub.js.',
        options: { role: 'developer', cwd: repo },
        stateDir,
        env,
      });
      assert.is(leaf.failure, null, `${leaf.failure}\n${leaf.stderr.slice(-2000)}\n${leaf.stdout.slice(-2000)}`);
      assert.equal([leaf.status, leaf.code], ['exited', 0]);
      assert.is(leaf.answer?.text, `done by ${cli}`);
      assert.is(
        readFileSync(join(repo, 'sub.js'), 'utf8'),
        `exports.sub = (a, b) => a - b; // ${hostile}`,
        'the content arrived byte for byte',
      );
      assert.is(
        readFileSync(join(repo, 'ran.txt'), 'utf8'),
        '2',
        'the command ran in the repository, on the written file',
      );
      assert.ok(sentBack(server, SOURCE_MARK), 'what the read tool read went back to the model');
      const counted = server.usage();
      const usage = readEvents(stateDir).filter((e) => e.event === 'usage');
      assert.equal(
        usage.map((e) => [e.leaf, e.input_tokens, e.output_tokens]),
        [['develop-green', counted.input, counted.output]],
      );
      assert.equal(leaf.usage?.input_tokens, counted.input);
    } finally {
      await server.close();
    }
  });

  test(`${cli} as a verifier cannot change the repository even when its model asks to`, async () => {
    const repo = makeProject();
    const stateDir = makeTempDir('leap-real-agents-state-');
    const server = await startModelServer({ script: readerTurns(repo, `looked only (${cli})`) });
    try {
      const { env } = privateHome(cli, server, { codexLogin: true });
      const leaf = await runAgentLeaf({
        name: 'verify-green',
        agent: plugin(cli),
        prompt: 'Judge.',
        options: { role: 'verifier', cwd: repo },
        stateDir,
        env,
      });
      assert.is(leaf.failure, null, `${leaf.failure}\n${leaf.stderr.slice(-2000)}`);
      assert.is(leaf.answer?.text, `looked only (${cli})`);
      assert.not.ok(existsSync(join(repo, 'evil.txt')), 'no file written');
      assert.not.ok(existsSync(join(repo, 'evil2.txt')), 'no command wrote one');
      assert.is(git(repo, 'status', '--porcelain', '--untracked-files=all'), '');
      assert.ok(
        server.requests.filter((r) => r.turn !== null).length >= 3,
        'the model asked, and was answered with a refusal',
      );
    } finally {
      await server.close();
    }
  });
}

test.run();

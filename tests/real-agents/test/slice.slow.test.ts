// `leap slice run` of one ball with a real builder (Codex CLI) and real reviewers (Claude Code, Gemini CLI), each on
// its own scripted model server: the builder's write is the ball's change, its proof passes, both jurors pass it,
// it is merged onto the spine, and every leaf's usage event is its server's count.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  binPath,
  cleanupTempDirs,
  git,
  makeGitRepo,
  makeTempDir,
  runBin,
  startModelServer,
  type ModelServer,
} from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, installedCli, privateHome, type CliName } from './clis.js';
import { readEvents } from './fixture-repo.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const BUILDER: CliName = 'codex';
const REVIEWERS: CliName[] = ['claude', 'gemini'];
const CONTENT = "exports.sub = (a, b) => a - b; // it's `$(id)` ✓\n";

if ([BUILDER, ...REVIEWERS].every((cli) => CLI_NAMES.includes(cli))) {
  test(`leap slice run: one ball built by ${BUILDER}, reviewed by ${REVIEWERS.join(' and ')}, merged; usage per leaf is its server's count`, async () => {
    const repo = makeGitRepo({
      prefix: 'leap-real-slice-',
      files: { 'add.js': 'exports.add = (a, b) => a + b;\n', 'README.md': '# sample\n' },
    });
    const dir = makeTempDir('leap-real-slice-def-');
    const proof = `const fs=require('fs');const got=fs.existsSync('sub.js')?fs.readFileSync('sub.js','utf8'):null;if(got!==${JSON.stringify(CONTENT)}){console.log('got '+JSON.stringify(got));process.exit(1)}`;
    const slice = join(dir, 'slice.json');
    writeFileSync(
      slice,
      JSON.stringify({
        id: 'subtract',
        base: 'HEAD',
        spine: 'integrator',
        balls: [
          {
            id: 'sub',
            goal: 'sub(a, b) returns a - b',
            spec: 'Create sub.js exporting sub(a, b) = a - b.',
            scope: [{ path: 'sub.js', sha256: null }],
            proof: { argv: [process.execPath, '-e', proof] },
            rollback: 'remove sub.js',
            deps: [],
          },
        ],
      }),
    );
    const servers = new Map<CliName, ModelServer>();
    // The builder works in the ball's worktree, its cwd: the write goes through its shell, relative to it.
    servers.set(
      BUILDER,
      await startModelServer({
        script: [{ run: `printf '%s' ${shellQuote(CONTENT)} > sub.js` }, { text: 'sub.js written' }],
      }),
    );
    for (const cli of REVIEWERS) {
      servers.set(
        cli,
        await startModelServer({
          script: [
            {
              structured: {
                verdict: 'pass',
                lens: 'defect',
                findings: [`[info] sub.js:1 subtracts (${cli})`],
                reasoning: `checked sub.js (${cli})`,
              },
            },
          ],
        }),
      );
    }
    try {
      let env: Record<string, string> = {};
      let home: string | undefined;
      for (const [cli, server] of servers) {
        const made = privateHome(cli, server, { codexLogin: true, home });
        home ??= made.home;
        env = { ...env, ...made.env };
      }
      env.HOME = home as string;
      env.PATH = `${[...servers.keys()].map((cli) => installedCli(cli)).join(':')}:${process.env.PATH ?? ''}`;
      const run = await runBin(
        binPath('cli', 'leap'),
        ['slice', 'run', slice, '--builder', BUILDER, '--reviewers', REVIEWERS.join(',')],
        { cwd: repo, env },
      );
      assert.is(run.code, 0, `${run.stdout}\n${run.stderr.slice(-4000)}`);
      assert.match(run.stdout, /slice subtract: passed \(1\)/);
      const spine = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/leap/subtract/').trim();
      assert.ok(spine !== '', 'a spine branch');
      assert.is(
        git(repo, 'show', `${spine.split('\n').find((b) => b.endsWith('spine'))}:sub.js`),
        CONTENT,
        'the builder wrote it, byte for byte',
      );
      // The engine's event log: the repository's state folder.
      const events = readEvents(join(repo, '.tdd'));
      const reviews = events.filter((e) => e.event === 'review' && e.reviewer !== null);
      // Each juror twice: the ball's jury, then the aggregate jury of the spine.
      assert.equal(
        reviews.map((e) => [e.reviewer, e.verdict]).sort(),
        [...REVIEWERS, ...REVIEWERS].map((cli) => [cli, 'pass']).sort(),
      );
      assert.equal(
        events
          .filter((e) => e.event === 'launch')
          .map((e) => e.leaf)
          .sort(),
        // The agents' leaves, and the engine's proof runs, each a supervised leaf of its own.
        [
          'build-sub-1',
          'champion-sub',
          'proof-sub-1',
          'reproof-sub-1',
          'review-spine-anthropic',
          'review-spine-google',
          'review-sub-anthropic',
          'review-sub-google',
        ],
      );
      assert.equal(
        events.filter((e) => e.event === 'review' && e.reviewer === null).map((e) => e.verdict),
        ['pass', 'pass'],
        'the ball jury and the aggregate jury',
      );
      for (const [cli, server] of servers) {
        const usage = events.filter((e) => e.event === 'usage' && e.agent === cli);
        const counted = server.usage();
        assert.ok(usage.length >= 1, `${cli}: a usage event`);
        assert.equal(
          usage.reduce((t, e) => [t[0]! + e.input_tokens, t[1]! + e.output_tokens], [0, 0]),
          [counted.input, counted.output],
          cli,
        );
      }
    } finally {
      for (const server of servers.values()) await server.close();
    }
  });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

test.run();

// Ground truth's scratch copy in the sandbox, through a real bwrap, with the repository where users put it (/tmp,
// a home of mode 0700, a name of quotes, $, backticks and non-ASCII): every link the copy makes resolves inside,
// what the suite writes beside the tracked files (vite's node_modules/.vite-temp, ~/.cache) stays in a throwaway
// layer, and a link planted in the tree to a place out of the repository leads nowhere.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { checkGroundTruth, chooseSandbox, findStepTests, runSuite, withScratchTree } from '../src/index.js';
import { TEST_CMD, makeRedRepo, verifyEnv } from './helpers.js';

// A stand-in for vite and go: it loads a dependency and a workspace package, runs git, writes its bundled config
// into node_modules and makes its cache in ~/.cache, each named after where it runs; any failure fails the suite.
const TOOL = `#!/usr/bin/env node
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
if (require('dep') !== 'dep-v1' || require('@ws/lib') !== 'lib-v1') process.exit(3);
execFileSync('git', ['log', '-1', '--format=%s'], { stdio: 'ignore' });
const here = encodeURIComponent(process.cwd());
fs.mkdirSync('node_modules/.vite-temp', { recursive: true });
fs.writeFileSync('node_modules/.vite-temp/' + here, '1');
fs.mkdirSync(process.env.HOME + '/.cache/' + here);
`;

/** The ignored node_modules of `repo`: a dependency, a workspace link, the tool; committed around it. */
function withDependencies(repo: string): void {
  for (const [path, text] of Object.entries({
    'node_modules/dep/index.js': "module.exports = 'dep-v1';\n",
    'node_modules/tool/cli.js': TOOL,
  })) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  chmodSync(join(repo, 'node_modules', 'tool', 'cli.js'), 0o755);
  mkdirSync(join(repo, 'node_modules', '.bin'));
  mkdirSync(join(repo, 'node_modules', '@ws'));
  symlinkSync('../tool/cli.js', join(repo, 'node_modules', '.bin', 'tool'));
  symlinkSync('../../packages/lib', join(repo, 'node_modules', '@ws', 'lib'));
  mkdirSync(join(repo, 'packages', 'lib'), { recursive: true });
  writeFileSync(join(repo, 'packages', 'lib', 'index.js'), "module.exports = 'lib-v1';\n");
  git(repo, 'rm', '-q', 'test/greet.test.js');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the workspace package');
  writeFileSync(
    join(repo, 'test', 'greet.test.js'),
    'import { greet } from "../src/greet.js";\nif (greet() !== "hello") process.exit(1);\n',
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'red: greet returns hello');
}

/** A red repository at `repo` (moved from where makeRedRepo made it), its dependencies ignored beside it. */
function redRepoAt(repo: string): string {
  const made = makeRedRepo();
  mkdirSync(dirname(repo), { recursive: true });
  git(dirname(made), 'clone', '-q', made, repo);
  for (const name of ['user.name', 'user.email']) git(repo, 'config', name, git(made, 'config', name).trim());
  mkdirSync(join(repo, '.tdd'));
  withDependencies(repo);
  return repo;
}

const sandbox = () => chooseSandbox('on', process.env);

async function redTruth(repo: string, home: string) {
  const tests = findStepTests({
    phase: 'red',
    repo,
    step: 'greet returns hello',
    issue: 3,
    eventsFile: join(repo, '.tdd', 'events.jsonl'),
  });
  const testCmd = `node_modules/.bin/tool || exit 9; ${TEST_CMD}`;
  const suiteLog = join(dirname(home), 'suite.log');
  const env = verifyEnv({ HOME: home });
  const truth = await checkGroundTruth({
    phase: 'red',
    repo,
    stateDir: join(repo, '.tdd'),
    testCmd,
    tests,
    env,
    sandbox: sandbox(),
    suiteLog,
  });
  return { truth, log: existsSync(suiteLog) ? readFileSync(suiteLog, 'utf8') : '' };
}

const scratch = suite("ground truth's scratch copy in the sandbox");
scratch.after.each(cleanupTempDirs);

scratch(
  'a repository in /tmp, in a home of mode 0700, under an odd name: the red check passes, and no write of the suite reaches the user',
  async () => {
    const base = makeTempDir('leap-scratch-');
    const closed = join(base, 'closed');
    mkdirSync(closed);
    chmodSync(closed, 0o700);
    for (const [where, repo, home] of [
      ['in /tmp', join(base, 'repo'), join(base, 'home')],
      ['in a home of mode 0700', join(closed, 'src', 'repo'), closed],
      ['under an odd name', join(base, 'my "odd" \'dir\' $HOME `id` é漢', 'repo'), join(base, 'home2')],
    ] as const) {
      mkdirSync(home, { recursive: true });
      redRepoAt(repo);
      const { truth, log } = await redTruth(repo, home);
      assert.ok(truth.ok, `${where}: ${truth.reason}\n${log}`);
      assert.match(truth.reason, 'passes without them');
      // The suite ran twice: in the user's tree (a writer: its writes are the user's) and in the copy (thrown away).
      const mine = [encodeURIComponent(realpathSync(repo))];
      assert.equal(
        readdirSync(join(repo, 'node_modules', '.vite-temp')),
        mine,
        `${where}: vite's temp file of the copy stays in the copy`,
      );
      assert.equal(
        readdirSync(join(home, '.cache')),
        mine,
        `${where}: ~/.cache is a throwaway layer in the copy's run`,
      );
      assert.is(git(repo, 'status', '--porcelain'), '', where);
    }
  },
);

scratch(
  'a link planted in the tree to a place out of the repository is not bound: the suite in the copy cannot read through it',
  async () => {
    const repo = redRepoAt(join(makeTempDir('leap-scratch-'), 'repo'));
    const outside = makeTempDir('leap-outside-');
    writeFileSync(join(outside, 'secret'), 'not for the suite\n');
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'leak\n');
    symlinkSync(outside, join(repo, 'leak'));
    const log = join(makeTempDir(), 'suite.log');
    const env = verifyEnv({ HOME: makeTempDir('leap-home-') });
    const code = await withScratchTree(repo, 'HEAD', ['.tdd'], (dir) =>
      runSuite(
        { testCmd: 'cat leak/secret; ls -l leak; node_modules/.bin/tool', env, suiteLog: log, sandbox: sandbox() },
        dir,
      ),
    );
    const seen = readFileSync(log, 'utf8');
    assert.is(code, 0, seen);
    assert.not.ok(seen.includes('not for the suite'), seen);
    assert.match(seen, /leak\/secret: No such file or directory/);
  },
);

scratch.run();

// `--runner NAME` finds a runner plugin by name (core's runner interface): a package the user installed in
// their own repository, with options of its own, that builds every round (here by handing each to the
// local runner and writing down what it was asked). No line of slice names it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupTempDirs, git, hostileTitles } from '@leap/test-utils';
import { ball, contentProof, leapSlice, setupRepo, showFile, writeAgents, writeSlice } from './engine-helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const sliceSrc = join(here, '..', 'src', 'index.ts');
const coreSrc = join(here, '..', '..', 'core', 'src', 'index.ts');
const BASE = { 'src/a.txt': 'old a\n', '.gitignore': 'node_modules/\n' };

/** Install, in the repository's own (ignored) node_modules, a package NAME whose index.js is `source`. */
function install(repo: string, name: string, source: string) {
  const dir = join(repo, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': { default: './index.js' } } }),
  );
  writeFileSync(join(dir, 'index.js'), source);
}

// A runner with a string option and a boolean one; it refuses a log in a folder that does not exist
// (as a runner checks its options before anything runs), and logs every round it is asked to build.
const ECHO = `
import { appendFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { createLocalRunner } from ${JSON.stringify(sliceSrc)};
import { UsageError } from ${JSON.stringify(coreSrc)};
export const runner = {
  name: 'echo',
  options: {
    'echo-log': { type: 'string', value: 'FILE', help: 'where each round asked for is written' },
    'echo-loud': { type: 'boolean', help: 'say more' },
  },
  async prepare(values, place) {
    const log = values['echo-log'];
    if (typeof log !== 'string' || !existsSync(dirname(log))) throw new UsageError('--echo-log FILE: its folder does not exist');
    appendFileSync(log, JSON.stringify({ prepared: { log, loud: values['echo-loud'] === true, cwd: place.cwd } }) + '\\n');
    return (context) => {
      const local = createLocalRunner(context);
      return {
        name: 'echo',
        async buildRound(request) {
          appendFileSync(log, JSON.stringify({ round: { ball: request.ball, round: request.round } }) + '\\n');
          return local.buildRound(request);
        },
        releaseBall: (slice, id) => local.releaseBall(slice, id),
        close: () => local.close(),
      };
    };
  },
};
`;

const plugin = suite('leap slice run --runner NAME: a runner plugin found by name');
plugin.after.each(cleanupTempDirs);

plugin(
  'a runner package installed in the repository builds every round, with its own options; its help lists them',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    install(repo, '@acme/runner-echo', ECHO);
    const file = writeSlice(dir, {
      id: 'echoed',
      balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    // The option's value is data, byte for byte.
    const log = join(dir, `${(hostileTitles(2, 5)[1] as string).replace(/[\p{Cc}/]/gu, ' ')}.jsonl`);
    const help = await leapSlice(repo, ['run', '--runner', '@acme/runner-echo', '--help']);
    assert.is(help.code, 0, help.stderr);
    assert.match(
      help.stdout,
      /Options of --runner echo:\n {2}--echo-log FILE {2}where each round asked for is written\n {2}--echo-loud {6}say more/,
    );
    const out = await leapSlice(repo, [
      'run',
      file,
      '--runner',
      '@acme/runner-echo',
      `--echo-log=${log}`,
      '--echo-loud',
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
    ]);
    assert.is(out.code, 0, out.stderr + out.stdout);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines[0], { prepared: { log, loud: true, cwd: repo } });
    assert.equal(lines.slice(1), [{ round: { ball: 'a', round: 1 } }], 'the one round went through the plugin');
    assert.is(showFile(repo, 'leap/echoed/spine', 'src/a.txt'), 'A\n');
  },
);

plugin(
  "a runner that refuses its options, a package that is not a runner, one that takes a command's own option, one not installed: exit 2, nothing touched",
  async () => {
    const { repo, dir } = setupRepo(BASE);
    install(repo, '@acme/runner-echo', ECHO);
    install(repo, '@acme/not-a-runner', 'export const hello = 1;\n');
    install(
      repo,
      '@acme/runner-greedy',
      'export const runner = { name: "greedy", options: { jobs: { type: "string", help: "mine" } }, async prepare() { throw new Error("never prepared"); } };\n',
    );
    install(repo, '@acme/runner-broken', 'import "@acme/nowhere";\nexport const runner = {};\n');
    const file = writeSlice(dir, { id: 'bad', balls: [ball('a', ['src/a.txt'], BASE)] });
    const cases: [string[], RegExp][] = [
      [
        ['--runner', '@acme/runner-echo', '--echo-log', join(dir, 'no', 'such', 'x.jsonl')],
        /--echo-log FILE: its folder does not exist/,
      ],
      [['--runner', '@acme/runner-echo', '--redis', 'redis://x'], /Unknown option '--redis'/],
      [
        ['--runner', '@acme/not-a-runner'],
        /--runner @acme\/not-a-runner: the package @acme\/not-a-runner is not a runner \(it exports no "runner" with "options" and "prepare"\)/,
      ],
      [
        ['--runner', '@acme/runner-greedy'],
        /--runner @acme\/runner-greedy: its option --jobs is one of the command's own/,
      ],
      [
        ['--runner', '@acme/runner-broken'],
        /--runner @acme\/runner-broken: the package @acme\/runner-broken did not load: .*@acme\/nowhere/,
      ],
      [
        ['--runner', 'nosuch'],
        /--runner nosuch needs the package @leap\/runner-nosuch, which is not installed: npm i -D @leap\/runner-nosuch \(beside @leap\/cli/,
      ],
      [
        ['--runner=Bad Name'],
        /Expected --runner to be local, a runner's short name \(bullmq\) or its package's name, got "Bad Name"/,
      ],
    ];
    for (const [extra, message] of cases) {
      const out = await leapSlice(repo, ['run', file, ...extra]);
      assert.is(out.code, 2, `${extra.join(' ')}: ${out.stderr}`);
      assert.match(out.stderr, message);
    }
    assert.ok(!existsSync(join(repo, '.leap')), 'no records');
    assert.ok(!existsSync(join(repo, '.tdd')), 'no state folder');
    assert.is(git(repo, 'for-each-ref', 'refs/heads/leap').trim(), '', 'no branch');
  },
);

plugin.run();

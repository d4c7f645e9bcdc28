import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LeapError } from '@leap/core';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo } from '@leap/test-utils';
import { loadSliceFile, type Slice } from '../src/definition/index.js';
import { newSlice, splitBallArg } from '../src/definition/new-slice.js';
import { sliceCommand } from '../src/cli.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

async function leapSlice(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
    cwd,
    env: process.env,
    isTTY: false,
  };
  try {
    return { code: await sliceCommand(args, io), stdout, stderr };
  } catch (error) {
    if (!(error instanceof LeapError)) throw error;
    return { code: error.exitCode, stdout, stderr: `${stderr}leap: ${error.message}\n` };
  }
}

// ---

const lib = suite('newSlice and splitBallArg');

lib.after.each(cleanupTempDirs);

lib('a skeleton with hashed scopes, defaults and TODO lines; it validates', () => {
  const repo = makeGitRepo({ files: { 'src/a.js': 'a\n' } });
  const { slice, violations } = newSlice({
    id: 'x',
    balls: [{ id: 'a', paths: ['src/a.js', 'src/b.js'] }],
    repoRoot: repo,
    cwd: repo,
  });
  assert.equal(violations, []);
  assert.equal(slice, {
    id: 'x',
    base: 'HEAD',
    spine: 'integrator',
    balls: [
      {
        id: 'a',
        goal: 'TODO: the one falsifiable outcome of a',
        spec: 'TODO: everything the builder needs to succeed without asking, as data',
        scope: [
          { path: 'src/a.js', sha256: sha('a\n') },
          { path: 'src/b.js', sha256: null },
        ],
        proof: { argv: ['npm', 'test'] },
        live: {
          argv: [
            'TODO-live-proof',
            'the command that exercises the real surface: the built command, a request to the started server, the page in Chromium',
          ],
          timeout_s: 60,
          network: false,
        },
        rollback: "restore the scope's files of a to base",
        deps: [],
      },
    ],
  });
});

lib('BALL:VALUE splits at the first colon after an id', () => {
  assert.equal(splitBallArg('lexer:src/a.js,b:c'), { id: 'lexer', value: 'src/a.js,b:c' });
  assert.equal(splitBallArg('a:'), { id: 'a', value: '' });
  assert.is(splitBallArg(':x'), null);
  assert.is(splitBallArg('no-colon'), null);
  assert.is(splitBallArg('Bad Id:x'), null);
});

lib.run();

// ---

const cli = suite('leap slice new');

cli.after.each(cleanupTempDirs);

cli(
  'writes a valid skeleton on stdout: balls, deps, goals, specs, proofs, base and spine from the options',
  async () => {
    const repo = makeGitRepo({
      files: { 'src/lexer.js': 'lex\n', 'src/parser.js': 'parse\n', 'src/a,b.js': 'comma\n' },
    });
    const [goal, spec] = hostileTitles(2);
    const out = await leapSlice(
      [
        'new',
        'split-parser',
        '--base',
        'main',
        '--spine',
        'parser',
        '--ball',
        'lexer:src/lexer.js,test/lexer.test.js',
        '--ball',
        'parser:./src//parser.js',
        '--file',
        'lexer:src/a,b.js',
        '--dep',
        'parser:lexer',
        '--goal',
        `lexer:${goal}`,
        '--spec',
        `parser:${spec}\nsecond line`,
        '--proof',
        'lexer:["node","--test","it\'s $(x).js"]',
      ],
      repo,
    );
    assert.equal([out.code, out.stderr], [0, '']);
    const slice = JSON.parse(out.stdout) as Slice;
    assert.equal(
      slice.balls.map((b) => [b.id, b.scope, b.deps]),
      [
        [
          'lexer',
          [
            { path: 'src/lexer.js', sha256: sha('lex\n') },
            { path: 'test/lexer.test.js', sha256: null },
            { path: 'src/a,b.js', sha256: sha('comma\n') },
          ],
          [],
        ],
        ['parser', [{ path: 'src/parser.js', sha256: sha('parse\n') }], ['lexer']],
      ],
    );
    assert.is(slice.balls[0]?.goal, goal);
    assert.is(slice.balls[1]?.spec, `${spec}\nsecond line`);
    assert.equal(slice.balls[0]?.proof, { argv: ['node', '--test', "it's $(x).js"] });
    assert.equal([slice.base, slice.spine], ['main', 'parser']);
    writeFileSync(join(repo, 'out.json'), out.stdout);
    assert.equal(loadSliceFile(join(repo, 'out.json')).violations, []);
  },
);

cli('--out writes the file, never over one that exists unless --force', async () => {
  const repo = makeGitRepo({ files: { 'a.js': 'a\n' } });
  const first = await leapSlice(['new', 's', '--ball', 'a:a.js', '--out', 's.json'], repo);
  assert.equal(first, { code: 0, stdout: '', stderr: 'wrote s.json: slice s, 1 ball\n' });
  const text = readFileSync(join(repo, 's.json'), 'utf8');
  assert.is(JSON.parse(text).balls[0].scope[0].sha256, sha('a\n'));
  const again = await leapSlice(['new', 's', '--ball', 'b:a.js', '--out', 's.json'], repo);
  assert.equal(again, {
    code: 2,
    stdout: '',
    stderr: 'leap: --out s.json: the file exists (give --force to overwrite it)\n',
  });
  assert.is(readFileSync(join(repo, 's.json'), 'utf8'), text);
  assert.is((await leapSlice(['new', 's', '--ball', 'b:a.js', '--out', 's.json', '--force'], repo)).code, 0);
  assert.is(JSON.parse(readFileSync(join(repo, 's.json'), 'utf8')).balls[0].id, 'b');
});

cli('bad input: each is named, exit 2, nothing written', async () => {
  const repo = makeGitRepo({ files: { 'a.js': 'a\n' } });
  const cases: [string[], string][] = [
    [
      ['new', 's'],
      'leap: expected at least one --ball BALL:PATH\nUsage: leap slice new ID --ball BALL:PATH[,PATH...] [options] (leap slice new --help tells more)\n',
    ],
    [
      ['new', '--ball', 'a:a.js'],
      'leap: expected one slice ID, got 0\nUsage: leap slice new ID --ball BALL:PATH[,PATH...] [options] (leap slice new --help tells more)\n',
    ],
    [
      ['new', 's', '--ball', 'a:a.js', '--bogus'],
      "leap: Unknown option '--bogus'\nUsage: leap slice new ID --ball BALL:PATH[,PATH...] [options] (leap slice new --help tells more)\n",
    ],
    [
      ['new', 's', '--ball', 'a.js'],
      'leap: --ball "a.js": expected BALL:VALUE, BALL an id (1 to 64 of a-z 0-9 . _ -, starting with a letter or digit)\n',
    ],
    [
      ['new', 's', '--ball', 'a:a.js', '--dep', 'z:a'],
      'leap: --dep z:...: no ball "z" was given with --ball (balls: a)\n',
    ],
    [
      ['new', 's', '--ball', 'a:a.js', '--proof', 'a:npm test'],
      'leap: --proof: expected a JSON array of strings, found "npm test"\n',
    ],
    [
      ['new', 's', '--ball', 'a:a.js', '--proof', 'a:[1]'],
      'leap: --proof: expected a non-empty JSON array of strings, found [1]\n',
    ],
    [
      ['new', 's', '--ball', 'a:../x.js'],
      'leap: "../x.js" has a ".." segment: scope paths stay inside the repository\n',
    ],
    [
      ['new', 'S!', '--ball', 'a:a.js', '--ball', 'b:a.js', '--dep', 'a:b', '--dep', 'b:a', '--out', 'x.json'],
      [
        'leap: the skeleton would be an invalid slice:',
        '  id: expected an id (1 to 64 of a-z 0-9 . _ -, starting with a letter or digit), found "S!"',
        '  dependency cycle: "a" -> "b" -> "a" (each depends on the next)',
        '  balls "a" and "b" share the file "a.js"',
      ].join('\n') + '\n',
    ],
  ];
  for (const [args, stderr] of cases) {
    const out = await leapSlice(args, repo);
    assert.equal(out, { code: 2, stdout: '', stderr }, args.join(' '));
  }
  assert.not.ok(existsSync(join(repo, 'x.json')));
  assert.is(git(repo, 'status', '--porcelain'), '');
  assert.match((await leapSlice(['new', '--help'], repo)).stdout, /--ball BALL:PATH\[,PATH\.\.\.\]/);
});

cli.run();

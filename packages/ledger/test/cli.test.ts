// The bin's surface: --help everywhere, unknown commands, bad arguments, stdin that is not a pipe; main in process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { UsageError } from '@leap/core';
import { issueArgument, required } from '../src/change-commands.js';
import { main, parseCommand, type CliIo } from '../src/cli.js';
import { COMMANDS as USAGES } from '../src/usage.js';
import { BIN, cleanEnv, head, ledger, makeLedgerRepo, rejects, script, stage } from './helpers.js';

const COMMANDS = Object.keys(USAGES);

// ---
const argvSuite = suite('parseCommand, issueArgument, required');

argvSuite(
  'a string option takes the next argument whatever it is, short and long; after -- all are positionals',
  () => {
    const options = {
      step: { type: 'string' },
      message: { type: 'string', short: 'm' },
      json: { type: 'boolean' },
    } as const;
    const parsed = parseCommand(
      ['7', '--step', '-v flag', '-m', '--json', '--json', '--', '--step', 'x'],
      options,
      'U',
      3,
    );
    assert.equal(
      [parsed.values.step, parsed.values.message, parsed.values.json, parsed.positionals],
      ['-v flag', '--json', true, ['7', '--step', 'x']],
    );
    assert.throws(
      () => parseCommand(['--step'], options, 'U', 3),
      (e: unknown) => e instanceof UsageError && /--step/.test(e.message),
    );
    assert.equal(parseCommand(['--step=a', '-m', 'y'], options, 'U', 3).values, { step: 'a', message: 'y' });
  },
);

argvSuite(
  "parseCommand: a hostile value that starts with - is the option's, byte for byte; too many positionals are named",
  () => {
    const options = { step: { type: 'string' }, json: { type: 'boolean' } } as const;
    const title = '-n $(rm -rf /) `x` "q" \'a\' é\nline 2';
    const parsed = parseCommand(['7', '--step', title, '--json'], options, 'USAGE', 1);
    assert.equal([parsed.values.step, parsed.values.json, parsed.positionals], [title, true, ['7']]);
    assert.throws(
      () => parseCommand(['7', '8'], options, 'USAGE', 1),
      (e: unknown) => e instanceof UsageError && e.message === 'unexpected argument "8"\nUSAGE',
    );
    assert.throws(
      () => parseCommand(['7', '8', '9 x'], options, 'USAGE', 1),
      (e: unknown) => e instanceof UsageError && e.message === 'unexpected arguments "8" "9 x"\nUSAGE',
    );
    assert.throws(
      () => parseCommand(['--nope'], options, 'USAGE', 1),
      (e: unknown) => e instanceof UsageError && /--nope/.test(e.message),
    );
  },
);

argvSuite('issueArgument takes --issue or a leading N, never both; required names what is missing', () => {
  assert.is(issueArgument('3', undefined, 'U'), '3');
  assert.is(issueArgument(undefined, '4', 'U'), '4');
  assert.is(issueArgument(undefined, undefined, 'U'), undefined);
  assert.throws(
    () => issueArgument('3', '4', 'U'),
    (e: unknown) => e instanceof UsageError && e.message === 'the issue is given twice (--issue "3" and "4")\nU',
  );
  assert.is(required('', '--step', 'U'), '');
  assert.throws(
    () => required(undefined, '--step TITLE', 'U'),
    (e: unknown) => e instanceof UsageError && e.message === 'missing --step TITLE\nU',
  );
});

argvSuite.run();

// ---
const helpSuite = suite('leap-ledger --help');
helpSuite.after.each(cleanupTempDirs);

helpSuite('every command answers --help with its usage and exit codes on stdout, exit 0', async () => {
  const dir = makeTempDir();
  const main = await ledger(dir, ['--help']);
  assert.equal([main.code, main.stderr], [0, '']);
  assert.match(main.stdout, /^Usage: leap-ledger COMMAND/);
  for (const command of COMMANDS) assert.ok(main.stdout.includes(`  ${command} `), command);
  for (const command of COMMANDS) {
    const help = await ledger(dir, [command, '--help']);
    assert.equal([help.code, help.stderr], [0, ''], command);
    assert.match(help.stdout, new RegExp(`^Usage: leap-ledger ${command}`), command);
    assert.match(help.stdout, /\nExit: 0 /, command);
  }
  const viaScript = await script('tick-ledger.sh', dir, ['-h']);
  assert.match(viaScript.stdout, /^Usage: leap-ledger tick /);
});

helpSuite(
  'no command, an unknown command, unknown options and stray arguments: exit 2 and nothing on stdout',
  async () => {
    const dir = makeTempDir();
    const none = await ledger(dir, []);
    assert.equal([none.code, none.stdout], [2, '']);
    assert.match(none.stderr, /^leap-ledger: expected a command\nUsage: leap-ledger COMMAND/);
    const unknown = await ledger(dir, ['tock', '--step', 'x']);
    assert.equal([unknown.code, unknown.stdout], [2, '']);
    assert.match(
      unknown.stderr,
      /^leap-ledger: unknown command "tock" \(did you mean "tick"\?\): expected one of list, current, /,
    );
    const option = await ledger(dir, ['current', '--bogus'], { input: '# t\n## Steps\n- [ ] a\n' });
    assert.equal([option.code, option.stdout], [2, '']);
    assert.match(option.stderr, /Unknown option '--bogus'[\s\S]*Usage: leap-ledger current/);
    const stray = await ledger(dir, ['list', 'file.md']);
    assert.match(stray.stderr, /unexpected argument "file\.md"/);
    const titleIsHelp = await ledger(dir, ['tick', '7', '--step', '--help'], { env: { VERI_STATE_DIR: dir } });
    assert.is(titleIsHelp.code, 2);
    assert.match(titleIsHelp.stderr, /issue-7\.md: no such/);
  },
);

helpSuite('a terminal-like stdin (a character device other than /dev/null) is refused instead of read', () => {
  const zero = openSync('/dev/zero', 'r');
  try {
    const result = spawnSync(process.execPath, [BIN, 'current'], {
      stdio: [zero, 'pipe', 'pipe'],
      env: cleanEnv(),
      encoding: 'utf8',
    });
    assert.is(result.status, 2);
    assert.match(
      result.stderr,
      /expected a ledger \(cat \.tdd\/issue-N\.md \| leap-ledger current\), or --issue N or --ledger FILE, on stdin, found a terminal/,
    );
  } finally {
    closeSync(zero);
  }
  const empty = spawnSync(process.execPath, [BIN, 'current'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv(),
    encoding: 'utf8',
  });
  assert.is(empty.status, 2);
  assert.match(empty.stderr, /<stdin>:1: no "## Steps" heading/);
});

helpSuite('a piped ledger larger than the first read buffer (1 MiB) is read whole, byte for byte', async () => {
  const dir = makeTempDir();
  // About 2.7 MiB: the buffer doubles twice. The step in flight is near the end, after every chunk boundary.
  const steps = Array.from({ length: 80_000 }, (_, i) => `- [${i < 79_990 ? 'x' : ' '}] Step ${i}: "é" 🦀 \`$(x)\``);
  const input = `# Big\n\n## Steps\n\n${steps.join('\n')}\n`;
  assert.ok(Buffer.byteLength(input) > 2 * (1 << 20));
  const result = await ledger(dir, ['current', '--json'], { input });
  assert.is(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout), {
    title: 'Step 79990: "é" 🦀 `$(x)`',
    state: 'todo',
    line: 79_995,
    criterion: null,
  });
});

helpSuite.run();

// ---
const mainSuite = suite('main, in this process');
mainSuite.after.each(cleanupTempDirs);

mainSuite(
  'every command runs through main with its io: queries, tick and clear, criteria, attempts, init',
  async () => {
    const { dir, ledger: file } = makeLedgerRepo([
      ['todo', 'First'],
      ['todo', 'Second'],
    ]);
    let [out, err, input] = ['', '', ''];
    const io: CliIo = {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      stdin: () => Buffer.from(input),
      cwd: dir,
      env: cleanEnv(),
    };
    const run = async (...argv: string[]) => {
      [out, err] = ['', ''];
      return main(argv, io);
    };
    assert.equal([await run('list', '--issue', '7'), out], [0, 'todo\tFirst\ntodo\tSecond\n']);
    input = readFileSync(file, 'utf8');
    assert.equal([await run('current', '--json'), JSON.parse(out).title], [0, 'First']);
    assert.equal([await run('validate', '--ledger', file), out], [0, '']);
    assert.equal([await run('tick', '--help'), out.startsWith('Usage: leap-ledger tick ')], [0, true]);
    stage(dir, 'a.txt', 'a\n');
    assert.equal([await run('tick', '7', '--step', 'First', '--json'), JSON.parse(out).commit], [0, head(dir)]);
    stage(dir, 'b.txt', 'b\n');
    assert.equal([await run('clear-refactor-pending', '--issue', '7', '--step', 'First'), out], [0, `${head(dir)}\n`]);
    writeFileSync(join(dir, 'body.md'), '## Acceptance criteria\n- [ ] one\n');
    assert.equal(
      [await run('tick-criterion', '1', '--body', 'body.md'), readFileSync(join(dir, 'body.md'), 'utf8')],
      [0, '## Acceptance criteria\n- [x] one\n'],
    );
    writeFileSync(join(dir, 'half.txt'), 'half\n');
    assert.is(await run('preserve-attempt', '7', '--step', 'Second'), 0);
    const ref = out.trim();
    assert.equal([await run('attempts', 'list', '--json'), JSON.parse(out).ref], [0, ref]);
    assert.equal(
      [await run('attempts', 'apply', ref), err],
      [0, `leap-ledger: applied ${ref} (${git(dir, 'rev-parse', ref).trim()})\n`],
    );
    await rejects(() => run('attempts', 'drop', ref), /expected "attempts list" or "attempts apply REF"/);
    input = 'Plan\nOne step\n';
    assert.equal([await run('init', '--ledger', 'new.md'), out], [0, `${join(dir, 'new.md')}\n`]);
  },
);

mainSuite.run();

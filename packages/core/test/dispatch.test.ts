// The one dispatcher: usage block, --help, a missing or unknown action (exit 2), the lazy load of the one that runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError, actionsUsage, dispatcher, type SubcommandIo } from '../src/index.js';

function io() {
  const out = { stdout: '', stderr: '' };
  const value: SubcommandIo = {
    stdout: (t) => {
      out.stdout += t;
    },
    stderr: (t) => {
      out.stderr += t;
    },
    cwd: '/',
    env: {},
    isTTY: false,
  };
  return { out, value };
}

test('dispatcher: --help lists the actions; the one named runs with the rest of argv, loaded only then', async () => {
  const loaded: string[] = [];
  const actions = {
    go: {
      summary: 'go somewhere',
      load: async () => {
        loaded.push('go');
        return async (argv: string[]) => argv.length;
      },
    },
    stop: {
      summary: 'stop',
      load: async () => {
        loaded.push('stop');
        return async () => 7;
      },
    },
  };
  const run = dispatcher('tool', actions);
  const a = io();
  assert.is(await run(['--help'], a.value), 0);
  assert.is(
    a.out.stdout,
    'Usage: tool ACTION [ARGS...]\n\nActions:\n  go    go somewhere\n  stop  stop\n\ntool ACTION --help tells more.\n',
  );
  assert.equal(loaded, []);
  assert.is(await run(['go', '$(x)', "it's"], io().value), 2);
  assert.equal(loaded, ['go']);
  for (const [argv, message] of [
    [[], /^expected an action\nUsage: tool ACTION/],
    [['constructor'], /^unknown action "constructor": expected one of go, stop \(tool --help\)$/],
  ] as const) {
    const error = await run([...argv], io().value).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof UsageError && error.exitCode === 2, String(error));
    assert.match((error as Error).message, message);
  }
});

test('dispatcher: its own noun, heading and footer; `before` answers first (--version)', async () => {
  const options = {
    noun: 'COMMAND',
    heading: 'Commands',
    footer: ['the end'],
    before: (argv: readonly string[], x: SubcommandIo) => (argv[0] === '-V' ? (x.stdout('1.0\n'), 0) : undefined),
  };
  const actions = { x: { summary: 'the x', load: async () => async () => 0 } };
  assert.is(
    actionsUsage('leap', actions, options),
    'Usage: leap COMMAND [ARGS...]\n\nCommands:\n  x  the x\n\nthe end',
  );
  const v = io();
  assert.is(await dispatcher('leap', actions, options)(['-V'], v.value), 0);
  assert.is(v.out.stdout, '1.0\n');
  const error = await dispatcher(
    'leap',
    actions,
    options,
  )(['y'], io().value).then(
    () => null,
    (e: unknown) => e as Error,
  );
  assert.match(String(error?.message), /^unknown command "y"/);
});

test('dispatcher: actions in groups, each heading once where its group starts; an action is handed the io its dispatcher takes', async () => {
  interface LedgerIo {
    stdout(text: string): void;
    stdin: () => string;
  }
  const got: string[] = [];
  const run = (name: string) => async () => async (argv: string[], x: LedgerIo) => (
    got.push(`${name} ${argv.join(' ')} ${x.stdin()}`), 7
  );
  const actions = {
    list: { summary: 'every step', group: 'Queries', load: run('list') },
    current: { summary: 'the step in flight', group: 'Queries', load: run('current') },
    tick: { summary: "--step TITLE: it's done", group: 'Changes', load: run('tick') },
  };
  assert.is(
    actionsUsage('leap-ledger', actions, { noun: 'COMMAND', footer: ['exit codes'] }),
    "Usage: leap-ledger COMMAND [ARGS...]\n\nQueries:\n  list     every step\n  current  the step in flight\nChanges:\n  tick     --step TITLE: it's done\n\nexit codes",
  );
  const x: LedgerIo = { stdout: () => undefined, stdin: () => 'from stdin' };
  assert.is(
    await dispatcher<LedgerIo>('leap-ledger', actions, { noun: 'COMMAND' })(['tick', '--step', "it's $(x)"], x),
    7,
  );
  assert.equal(got, ["tick --step it's $(x) from stdin"]);
});

test.run();

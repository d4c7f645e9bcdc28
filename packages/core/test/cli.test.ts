import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, hostileTitles, makeTempDir, runBin } from '@leap/test-utils';
import { parseCli, writeFd, UsageError, type LeapError } from '../src/index.js';
import { recordMark, parseMarkFields } from '../src/events/event-log.js';
import { readEvents } from '../src/events/event-log.js';

const options = {
  json: { type: 'boolean' },
  step: { type: 'string', short: 's' },
  tests: { type: 'string', multiple: true },
} as const;

// ---
const parse = suite('parseCli');
parse('parses options and positionals; unknown options are UsageErrors that show the usage', () => {
  const { values, positionals } = parseCli(
    ['--step', '--weird title', 'green', '--json', '--tests', 'a', '--tests', 'b'],
    options,
    'Usage: x',
  );
  assert.equal(values, { step: '--weird title', json: true, tests: ['a', 'b'] });
  assert.equal(positionals, ['green']);
  assert.throws(
    () => parseCli(['--nope'], options, 'Usage: x'),
    (e: Error) => e instanceof UsageError && e.message === "Unknown option '--nope'\nUsage: x",
  );
  assert.throws(
    () => parseCli(['--jsno'], options, 'Usage: x'),
    (e: Error) => e.message === 'Unknown option \'--jsno\' (did you mean "--json"?)\nUsage: x',
  );
  assert.throws(
    () => parseCli(['--step'], options, 'U', { exitCode: 125 }),
    (e: LeapError) => e.exitCode === 125,
  );
});
parse('stopAtPositional: options end at the command, whose own options are kept', () => {
  const r = parseCli(['--json', 'NAME', 'cmd', '--json', '-x'], options, 'U', { stopAtPositional: true });
  assert.equal(r.values, { json: true });
  assert.equal(r.positionals, ['NAME', 'cmd', '--json', '-x']);
  const s = parseCli(['-s', 'title', '--', '--json'], options, 'U', { stopAtPositional: true });
  assert.equal(s.values, { step: 'title' });
  assert.equal(s.positionals, ['--json']);
  assert.equal(parseCli(['--step=a', 'b'], options, 'U', { stopAtPositional: true }).positionals, ['b']);
  assert.equal(parseCli(['--json'], options, 'U', { stopAtPositional: true }).positionals, []);
  // No arguments at all, or only a command after the options: nothing to parse, nothing set.
  assert.equal(parseCli([], options, 'U'), { values: {}, positionals: [] });
  assert.equal(parseCli(['cmd', '--json'], options, 'U', { stopAtPositional: true }), {
    values: {},
    positionals: ['cmd', '--json'],
  });
  assert.equal(parseCli(['--', '-x'], options, 'U', { stopAtPositional: true }), { values: {}, positionals: ['-x'] });
});
parse.run();

// ---
const run = suite('runCli');
run('maps results and errors to exit codes, and prints errors once', async () => {
  const { runCommand } = await import('@leap/test-utils');
  const fixture = join(import.meta.dirname, 'fixtures', 'run-cli.mjs');
  const cases: [string, number, RegExp | string][] = [
    ['code', 3, ''],
    ['void', 0, ''],
    ['usage', 125, 't: bad\n'],
    ['bug', 2, /^t: internal error: TypeError: bug/],
    ['bug70', 70, /^t: internal error/],
    // exitWhenDone: the code is kept and a pending timer (an hour away) does not hold the process; runCommand's bound would fail it.
    ['linger', 5, ''],
    ['linger-usage', 4, 't: bad\n'],
  ];
  for (const [mode, code, stderr] of cases) {
    const r = await runCommand(process.execPath, [fixture, mode]);
    assert.is(r.code, code, mode);
    if (typeof stderr === 'string') assert.is(r.stderr, stderr, mode);
    else assert.match(r.stderr, stderr);
  }
});
run('writeFd survives a reader that closed the pipe (EPIPE)', async () => {
  const { runCommand } = await import('@leap/test-utils');
  const fixture = join(import.meta.dirname, 'fixtures', 'run-cli.mjs');
  const r = await runCommand('bash', [
    '-c',
    `node '${fixture}' flood | head -c 10 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`,
  ]);
  assert.is(r.stdout, 'rc=0\n');
  assert.is(r.stderr, 'still here\n');
  writeFd(1, '');
});
run.run();

// ---
const mark = suite('recordMark');
mark.after(cleanupTempDirs);
mark('appends a mark with anchor and extra fields, context from the environment', () => {
  const dir = makeTempDir();
  const env = { VERI_STATE_DIR: dir, VERI_ISSUE: '4', VERI_STEP: 'a step', VERI_SKILL_COMMIT: 'c0ffee' };
  const event = recordMark('step-start', ['anchor=x=y', 'phase=red'], { env, cwd: dir });
  assert.is(event.anchor, 'x=y');
  assert.is((event as Record<string, unknown>).phase, 'red');
  const [record] = readEvents(join(dir, 'events.jsonl'));
  assert.equal(record!.event, event);
  assert.throws(() => recordMark('', [], { env }), /mark NAME/);
  assert.throws(() => parseMarkFields(['novalue']), /KEY=VALUE.*"novalue"/);
  assert.throws(() => parseMarkFields(['1x=2']), /KEY=VALUE/);
  assert.throws(() => parseMarkFields(['step=evil']), /set by leap-event itself/);
  assert.equal(parseMarkFields([]), { anchor: null, extra: {} });
});
mark.run();

// ---
const bins = suite('bins: leap-event, leap-role');
bins.after(cleanupTempDirs);
bins('leap-event mark passes hostile titles byte for byte into the log', async () => {
  const dir = makeTempDir();
  const titles = hostileTitles(25, 11);
  for (const title of titles) {
    const r = await runBin(binPath('core', 'leap-event'), ['mark', 'step-start', `anchor=${title}`], {
      env: { ...process.env, VERI_STATE_DIR: dir, VERI_ISSUE: '9', VERI_STEP: title },
    });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, '');
  }
  const events = readEvents(join(dir, 'events.jsonl')).map(
    (r) => r.event as { step: string; anchor: string; issue: number },
  );
  assert.equal(
    events.map((e) => e.step),
    titles,
  );
  assert.equal(
    events.map((e) => e.anchor),
    titles,
  );
  assert.ok(events.every((e) => e.issue === 9));
  const json = await runBin(binPath('core', 'leap-event'), ['mark', 'x', '--json'], {
    env: { ...process.env, VERI_STATE_DIR: dir },
  });
  assert.is(JSON.parse(json.stdout).name, 'x');
  assert.is(readFileSync(join(dir, 'events.jsonl'), 'utf8').trim().split('\n').length, 26);
});
bins('leap-event: help, usage errors, bad environment', async () => {
  const help = await runBin(binPath('core', 'leap-event'), ['--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: leap-event mark NAME/);
  const noKind = await runBin(binPath('core', 'leap-event'), ['flag', 'x']);
  assert.is(noKind.code, 2);
  assert.match(noKind.stderr, /^leap-event: Expected "mark NAME"/);
  const badIssue = await runBin(binPath('core', 'leap-event'), ['mark', 'x'], {
    env: { ...process.env, VERI_STATE_DIR: makeTempDir(), VERI_ISSUE: 'x' },
  });
  assert.is(badIssue.code, 2);
  assert.match(badIssue.stderr, /VERI_ISSUE.*"x"/);
});
bins('leap-role prints actor, phase, attempt; --json; unknown shapes exit 2', async () => {
  const plain = await runBin(binPath('core', 'leap-role'), ['develop-green-2']);
  assert.equal([plain.code, plain.stdout, plain.stderr], [0, 'developer green 2\n', '']);
  const json = await runBin(binPath('core', 'leap-role'), ['review-parser-google', '--json']);
  assert.equal(JSON.parse(json.stdout), {
    actor: 'reviewer',
    phase: 'review',
    attempt: 1,
    ball: 'parser',
    family: 'google',
  });
  const bad = await runBin(binPath('core', 'leap-role'), ['deploy-red']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^leap-role: Expected a leaf name/);
  const none = await runBin(binPath('core', 'leap-role'), []);
  assert.is(none.code, 2);
  const help = await runBin(binPath('core', 'leap-role'), ['-h']);
  assert.match(help.stdout, /^Usage: leap-role NAME/);
});
bins.run();

// ---
const data = suite('parseCli: option values are data');
data('a value that starts with a dash, or is "--", binds to its option', () => {
  for (const title of ['-x', '--json', '--', '- [ ] step', '-s', '--step=x']) {
    const r = parseCli(['--step', title, 'green'], options, 'U');
    assert.equal([r.values.step, r.positionals], [title, ['green']], title);
    const short = parseCli(['-s', title, 'NAME'], options, 'U', { stopAtPositional: true });
    assert.equal([short.values.step, short.positionals], [title, ['NAME']], title);
  }
  assert.throws(() => parseCli(['green', '--step'], options, 'U'), /argument missing/);
});
data.run();

// ---
const scripts = suite('drop-in scripts: event.sh, leaf-role.sh');
scripts.after(cleanupTempDirs);
scripts('same arguments and exit codes as the bins', async () => {
  const { scriptPath, runCommand } = await import('@leap/test-utils');
  const dir = makeTempDir();
  const title = hostileTitles(3, 5)[2]!;
  const mark = await runCommand(scriptPath('event.sh'), ['mark', 'step-start', `anchor=${title}`], {
    env: { ...process.env, VERI_STATE_DIR: dir, VERI_STEP: title },
  });
  assert.is(mark.code, 0, mark.stderr);
  const [record] = readEvents(join(dir, 'events.jsonl'));
  assert.equal([record!.event.step, (record!.event as { anchor: string }).anchor], [title, title]);
  const role = await runCommand(scriptPath('leaf-role.sh'), ['verdict-green']);
  assert.equal([role.code, role.stdout], [0, 'verifier green 1\n']);
  const bad = await runCommand(scriptPath('leaf-role.sh'), ['nope']);
  assert.is(bad.code, 2);
});
scripts.run();

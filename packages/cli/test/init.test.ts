import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { git, hostileTitles, makeGitRepo, makeTempDir, repoRoot, runCommand } from '@leap/test-utils';
import { readProjectConfig } from '@leap/conductor';
import { loadAgentRegistry } from '@leap/verify';
import { initMain } from '../src/init-cli.js';
import type { InitReport } from '../src/init-show.js';

const BIN = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');

// A PATH holding git and nothing else, so no agent CLI of this machine is found; `agents` adds stand-ins.
function pathWith(agents: Record<string, string> = {}): string {
  const dir = makeTempDir('leap-init-path-');
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(dir, 'git'));
  for (const [name, script] of Object.entries(agents)) {
    // wx: never through the git link above (that would write into the system's git).
    writeFileSync(join(dir, name), script, { flag: 'wx' });
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}
// The test runners and package managers the detected commands start, as stand-ins: init checks they exist.
const TOOLS = Object.fromEntries(
  ['npm', 'node', 'make', 'pytest', 'cargo', 'go'].map((name) => [name, '#!/bin/sh\nexit 0\n']),
);
const BARE_PATH = pathWith(TOOLS);
const which = (name: string): string => execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();

function io(cwd: string, env: NodeJS.ProcessEnv = { PATH: BARE_PATH, HOME: makeTempDir('leap-init-home-') }) {
  const out: string[] = [];
  return {
    out,
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), cwd, env, isTTY: false },
  };
}

async function init(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const run = io(cwd, env);
  const code = await initMain(args, run.io);
  return { code, out: run.out.join('') };
}

async function initJson(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<InitReport> {
  const ran = await init(cwd, [...args, '--json'], env);
  assert.is(ran.code, 0, ran.out);
  return JSON.parse(ran.out) as InitReport;
}

// Every file of the tree but .git, with its bytes, and git's view: what "nothing touched" compares.
function snapshot(dir: string): string {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      if (rel === '' && name === '.git') continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else files.push(`${path}\n${readFileSync(join(dir, path), 'base64')}`);
    }
  };
  walk('');
  return `${files.join('\n')}\n${existsSync(join(dir, '.git')) ? git(dir, 'status', '--porcelain', '--ignored') : ''}`;
}

async function badInput(dir: string, args: string[], message: RegExp, env?: NodeJS.ProcessEnv): Promise<void> {
  const before = snapshot(dir);
  try {
    await init(dir, args, env);
    assert.unreachable(`${args.join(' ')} was accepted`);
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 2, (error as Error).message);
    assert.match((error as Error).message, message);
  }
  assert.is(snapshot(dir), before, `${args.join(' ')} touched the tree`);
}

test('--help says what it writes, its options and its exit codes', async () => {
  const ran = await init(makeTempDir(), ['--help']);
  assert.is(ran.code, 0);
  assert.match(ran.out, /^Usage: leap init \[--yes\]/);
  for (const word of [
    '--test-cmd',
    '--tests',
    '--timeout',
    '--idle-timeout',
    '--agents',
    '--issue-title',
    '--skills [DIR]',
    'Exit codes',
    'never rewritten',
  ])
    assert.ok(ran.out.includes(word), word);
});

test('an empty repository: the config (no test command to detect), the state ignore file and a first issue; the printed commands commit them', async () => {
  const dir = makeTempDir('leap-init-empty-');
  git(dir, 'init', '-q', '-b', 'main');
  const report = await initJson(dir, ['--yes']);
  assert.is(report.testCommand, null);
  assert.equal(report.candidates, []);
  assert.equal(
    report.files.map((f) => [f.path, f.status]),
    [
      ['leap.config.json', 'written'],
      ['.tdd/.gitignore', 'written'],
      ['.tdd/issues/1.md', 'written'],
    ],
  );
  // What it wrote is what the conductor reads, with its own reader.
  assert.equal(readProjectConfig(dir)?.config, { timeout: '15m', idleTimeout: '5m' });
  assert.match(
    readFileSync(join(dir, '.tdd/issues/1.md'), 'utf8'),
    /^# Describe the first change\n[\s\S]*## Acceptance criteria\n- \[ \] /,
  );
  // No agent CLI and no test command: the real run cannot start, and init says why instead of printing it.
  assert.equal(report.next.length, 1);
  assert.match(report.blocked[0] ?? '', /^no agent CLI is on PATH \(claude, codex, gemini\): install one and log in/);
  assert.match(
    report.blocked[1] ?? '',
    /^no test command \(none was detected\): add "testCommand" to leap\.config\.json/,
  );
  // The commit command, pasted into bash, leaves a clean tree with the config and the issue committed.
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t.invalid',
  };
  execFileSync('bash', ['-c', report.next[0] as string], { cwd: dir, env, stdio: 'ignore' });
  assert.is(git(dir, 'status', '--porcelain'), '');
  assert.is(git(dir, 'ls-files'), '.tdd/issues/1.md\nleap.config.json\n');
});

test("the four languages of the conductor's tests: the test command as leap tdd run detects it", async () => {
  const projects: [Record<string, string>, string][] = [
    [{ 'package.json': JSON.stringify({ name: 'p', scripts: { test: 'node --test' } }) }, 'npm test'],
    [{ 'pytest.ini': '[pytest]\n', 'test_x.py': 'def test_x():\n    assert True\n' }, 'pytest'],
    [{ 'Cargo.toml': '[package]\nname = "c"\nversion = "0.1.0"\n', 'src/lib.rs': '' }, 'cargo test'],
    [{ 'go.mod': 'module example.com/m\n\ngo 1.22\n', 'm.go': 'package m\n' }, 'go test ./...'],
  ];
  for (const [files, command] of projects) {
    const dir = makeGitRepo({ files });
    const report = await initJson(dir, ['--yes']);
    assert.is(report.testCommand?.command, command);
    assert.match(report.testCommand?.source ?? '', /^detected: /);
    assert.is(readProjectConfig(dir)?.config.testCommand, command);
  }
});

test('several possible test commands: --yes needs --test-cmd (exit 2, nothing written); --test-cmd and --tests are written as given', async () => {
  const dir = makeGitRepo({
    files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), Makefile: 'test:\n\ttrue\n' },
  });
  await badInput(
    dir,
    ['--yes'],
    /several test commands are possible, give one with --test-cmd: "npm test" \(package\.json has a "test" script\), "make test"/,
  );
  const report = await initJson(dir, [
    '--yes',
    '--test-cmd',
    'make test',
    '--tests',
    'src/**/*.rs',
    '--tests',
    'spec/*.js',
    '--timeout',
    '90s',
    '--idle-timeout',
    '0',
  ]);
  assert.equal(
    report.candidates.map((c) => c.command),
    ['npm test', 'make test'],
  );
  assert.equal(readProjectConfig(dir)?.config, {
    testCommand: 'make test',
    testFiles: ['src/**/*.rs', 'spec/*.js'],
    timeout: '90s',
    idleTimeout: '0',
  });
});

test('bad input is exit 2 with nothing written', async () => {
  const dir = makeGitRepo({ files: { 'package.json': JSON.stringify({ scripts: { test: 'node t.js' } }) } });
  await badInput(dir, ['--yes', '--timeout', '-5'], /timeout/);
  await badInput(dir, ['--yes', '--idle-timeout', 'soon'], /idle-timeout/);
  await badInput(dir, ['--yes', '--agents', '../outside.json'], /Expected --agents to be a path inside the repository/);
  await badInput(dir, ['--yes', '--agents', '/etc/agents.json'], /inside the repository/);
  await badInput(dir, ['--yes', '--skills', '../x'], /Expected --skills to be a path inside the repository/);
  await badInput(dir, ['--yes', '--issue-title', 'two\nlines'], /Expected --issue-title to be one non-empty line/);
  await badInput(dir, ['--yes', '--issue-title', '  '], /one non-empty line/);
  await badInput(dir, ['--yes', '--test-cmd', ''], /Expected --test-cmd to be a command/);
  await badInput(dir, ['--yes', '--tests', ''], /Expected --tests to be a glob/);
  await badInput(dir, ['--yes', '--frobnicate'], /Unknown option '--frobnicate'[\s\S]*Usage: leap init/);
  await badInput(dir, ['--yes', 'extra'], /unexpected argument "extra"/);
  // No terminal and no --yes: the files are shown, and nothing is written.
  await badInput(dir, [], /not on a terminal and no --yes: nothing written/);
  // A leap.config.json of the user's that the conductor would refuse is refused here too, and kept.
  writeFileSync(join(dir, 'leap.config.json'), '{"testCommand": "npm test", "tesFiles": []}\n');
  await badInput(dir, ['--yes'], /leap\.config\.json:1:\d+: unknown key "tesFiles" \(did you mean "testFiles"\?\)/);
  const outside = makeTempDir('leap-init-nogit-');
  await badInput(outside, ['--yes'], /not in a git repository/);
});

test("the user's files survive byte for byte: an existing config, issue, agents file and skill are kept, and a second run writes nothing", async () => {
  const userConfig = '{ "testCommand": "make check",\n  "agents": "my-agents.json" }\n';
  const userIssue = '# My own issue\n\n## Acceptance criteria\n- [ ] mine\n';
  const userAgents = '{"agents": {"mine": {"plugin": "command", "command": ["true"], "family": "x"}}}\n';
  const userSkill = 'my own tdd skill, not yours\n';
  const dir = makeGitRepo({
    files: {
      'leap.config.json': userConfig,
      '.tdd/issues/1.md': userIssue,
      'my-agents.json': userAgents,
      '.claude/skills/tdd/SKILL.md': userSkill,
    },
  });
  const env = { PATH: pathWith({ claude: '#!/bin/sh\nexit 0\n' }), HOME: makeTempDir(), ANTHROPIC_API_KEY: 'k' };
  const report = await initJson(dir, ['--yes', '--skills'], env);
  assert.equal(
    report.files.filter((f) => f.status === 'kept').map((f) => f.path),
    ['leap.config.json', 'my-agents.json', '.tdd/issues/1.md', '.claude/skills/tdd/SKILL.md'],
  );
  assert.is(report.testCommand?.source, 'leap.config.json');
  assert.is(readFileSync(join(dir, 'leap.config.json'), 'utf8'), userConfig);
  assert.is(readFileSync(join(dir, '.tdd/issues/1.md'), 'utf8'), userIssue);
  assert.is(readFileSync(join(dir, 'my-agents.json'), 'utf8'), userAgents);
  assert.is(readFileSync(join(dir, '.claude/skills/tdd/SKILL.md'), 'utf8'), userSkill);
  // The skill that was missing is copied, as the repository's skills folder holds it.
  assert.is(
    readFileSync(join(dir, '.claude/skills/leap/SKILL.md'), 'utf8'),
    readFileSync(join(repoRoot, 'skills/leap/SKILL.md'), 'utf8'),
  );
  const before = snapshot(dir);
  const again = await initJson(dir, ['--yes', '--skills'], env);
  assert.ok(
    again.files.every((f) => f.status === 'kept'),
    JSON.stringify(again.files),
  );
  assert.is(snapshot(dir), before);
  // An issue of the user's numbered 4 is the one the next command names; no template is added beside it.
  const other = makeGitRepo({ files: { '.tdd/issues/4.md': userIssue } });
  const four = await initJson(other, ['--yes']);
  assert.is(four.issue, 4);
  assert.match(four.blocked.join('\n'), /no agent CLI/);
  assert.ok(!existsSync(join(other, '.tdd/issues/1.md')));
});

test("hostile bytes: a title, an agents path and the repository's own path arrive byte for byte, and the printed command works in bash", async () => {
  const title = hostileTitles(3)[1] as string;
  const parent = makeTempDir('leap-init-hostile-');
  const dir = join(parent, 'repo $(touch PWNED) `id` \'q\' "dq" 🦀 שלום');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  const agentsPath = "conf/agents $HOME 'x'.json";
  const env = { PATH: pathWith({ gemini: '#!/bin/sh\nexit 0\n' }), HOME: makeTempDir(), GEMINI_API_KEY: 'k' };
  const report = await initJson(
    dir,
    ['--yes', '--issue-title', title, '--agents', agentsPath, '--test-cmd', 'echo \'$x\' "`y`"'],
    env,
  );
  assert.is(report.root, dir);
  assert.is(readFileSync(join(dir, '.tdd/issues/1.md'), 'utf8').split('\n')[0], `# ${title}`);
  const config = readProjectConfig(dir)?.config;
  assert.is(config?.agents, agentsPath);
  assert.is(config?.testCommand, 'echo \'$x\' "`y`"');
  assert.equal(Object.keys(loadAgentRegistry(join(dir, agentsPath)).entries), ['gemini']);
  const env2 = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t.invalid',
  };
  execFileSync('bash', ['-c', report.next[0] as string], { cwd: dir, env: env2, stdio: 'ignore' });
  assert.is(git(dir, 'status', '--porcelain'), '');
  assert.ok(git(dir, 'ls-files', '-z').split('\0').includes(agentsPath));
  assert.ok(!existsSync(join(dir, 'PWNED')) && !existsSync(join(parent, 'PWNED')));
});

test('the agent CLIs on PATH, each with its readiness, make the agents file; the roles are of two families, logged-in ones first', async () => {
  const home = makeTempDir('leap-init-home-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'oauth_creds.json'), '{}');
  // codex answers its own login check: not logged in.
  const codex = '#!/bin/sh\nif [ "$1 $2" = "login status" ]; then echo "Not logged in" >&2; exit 1; fi\nexit 3\n';
  const env = { PATH: pathWith({ claude: '#!/bin/sh\nexit 0\n', codex, gemini: '#!/bin/sh\nexit 0\n' }), HOME: home };
  const dir = makeGitRepo();
  const report = await initJson(dir, ['--yes'], env);
  const seen = Object.fromEntries(report.agents.map((a) => [a.name, [a.path !== null, a.loggedIn]]));
  assert.equal(seen, { claude: [true, false], codex: [true, false], gemini: [true, true] });
  assert.match(report.agents.find((a) => a.name === 'codex')?.why ?? '', /Not logged in/);
  assert.match(report.agents.find((a) => a.name === 'claude')?.why ?? '', /no credentials found: run `claude` once/);
  assert.match(report.agents.find((a) => a.name === 'gemini')?.why ?? '', /oauth_creds\.json/);
  const registry = loadAgentRegistry(join(dir, 'leap.agents.json'));
  assert.equal(Object.keys(registry.entries), ['claude', 'codex', 'gemini']);
  // The roles are the agents file's: a run reads them there, with no --developer.
  assert.equal(registry.roles, { developer: ['gemini'], verifier: ['claude'] });
  assert.match(
    readFileSync(join(dir, 'leap.agents.json'), 'utf8'),
    /"\$comment": "found by leap init: claude: installed, not logged in; codex: installed, not logged in; gemini: installed, logged in"/,
  );
  const config = readProjectConfig(dir)?.config;
  assert.equal([config?.agents, config?.developer, config?.verifier], ['leap.agents.json', undefined, undefined]);
  assert.match(report.blocked.join('\n'), /^claude is installed but not logged in|no test command/m);
  // codex's own check says it is logged in: it is the verifier beside a logged-in claude.
  const pair = makeGitRepo();
  const codexIn =
    '#!/bin/sh\nif [ "$1 $2" = "login status" ]; then echo "Logged in using ChatGPT" >&2; exit 0; fi\nexit 3\n';
  // Its home (so its CODEX_HOME) is a temp folder here: a TMPDIR of its own, else codex's check rightly says its own sandbox could not run.
  const paired = await initJson(pair, ['--yes'], {
    PATH: pathWith({ claude: '#!/bin/sh\nexit 0\n', codex: codexIn }),
    HOME: home,
    ANTHROPIC_API_KEY: 'k',
    TMPDIR: makeTempDir('leap-tmpdir-'),
  });
  assert.equal(
    paired.agents.map((a) => a.loggedIn),
    [true, true, false],
  );
  assert.equal(loadAgentRegistry(join(pair, 'leap.agents.json')).roles, { developer: ['claude'], verifier: ['codex'] });
  // One family only: a developer, and no verifier to pick.
  const solo = makeGitRepo();
  const alone = await initJson(solo, ['--yes'], {
    PATH: pathWith({ claude: '#!/bin/sh\nexit 0\n' }),
    HOME: home,
    CLAUDE_CODE_OAUTH_TOKEN: 't',
  });
  assert.equal(loadAgentRegistry(join(solo, 'leap.agents.json')).roles, { developer: ['claude'] });
  assert.match(
    alone.blocked.join('\n'),
    /a blind verifier is of another model family than claude \(anthropic\): install codex or gemini and log in, or run with --allow-same-family/,
  );
});

test('on a terminal it asks: the answers are written; declining writes nothing (exit 1)', async () => {
  const dir = makeGitRepo({
    files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), Makefile: 'test:\n\ttrue\n' },
  });
  const asked: string[] = [];
  const answers = (list: string[]) => async (question: string) => {
    asked.push(question);
    const next = list.shift();
    if (next === undefined) throw new Error(`no answer left for ${question}`);
    return next;
  };
  const before = snapshot(dir);
  const declined = io(dir);
  assert.is(await initMain([], declined.io, answers(['2', '', '', '', '', 'n', 'n', 'n'])), 1);
  assert.match(declined.out.join(''), /Nothing written\./);
  assert.is(snapshot(dir), before);
  assert.match(
    asked[0] ?? '',
    /Several test commands are possible:\n {2}1\. npm test {2}\(package\.json[^\n]*\n {2}2\. make test/,
  );
  const run = io(dir);
  // A bad time limit is asked again; the typed title is kept byte for byte.
  assert.is(
    await initMain(
      [],
      run.io,
      answers(['pytest -q', 'tests/*.py', 'soon', '2m', '', 'Ship it: "now" $x', 'y', 'n', '']),
    ),
    0,
  );
  assert.match(
    asked.at(-2) ?? '',
    /^No agent CLI is installed\. Try the loop now with scripted agents \(no model, no network\)\? \[y\/N\] $/,
  );
  assert.equal(readProjectConfig(dir)?.config, {
    testCommand: 'pytest -q',
    testFiles: ['tests/*.py'],
    timeout: '2m',
    idleTimeout: '5m',
  });
  assert.is(readFileSync(join(dir, '.tdd/issues/1.md'), 'utf8').split('\n')[0], '# Ship it: "now" $x');
  assert.ok(existsSync(join(dir, '.claude/skills/tdd/SKILL.md')));
  assert.match(
    run.out.join(''),
    /Before a real run of issue 1 \(edit \.tdd\/issues\/1\.md first\):\n {2}- no agent CLI is on PATH/,
  );
  assert.match(run.out.join(''), / init --try \(or .* demo, on a sample project\)\.\n/);
});

test('--json says written: false when every file shown appeared before the answer (kept, byte for byte)', async () => {
  const files = { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) };
  const shown = io(makeGitRepo({ files }));
  assert.is(await initMain(['--yes', '--json'], shown.io), 0);
  const paths = (JSON.parse(shown.out.join('')) as InitReport).files.map((f) => f.path);
  const dir = makeGitRepo({ files });
  const theirs = "the user's, written meanwhile: $x `y` é\n";
  const ask = async (question: string) => {
    if (question.startsWith('Write '))
      for (const path of paths) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), theirs);
      }
    return '';
  };
  const run = io(dir);
  assert.is(await initMain(['--json'], run.io, ask), 0);
  const report = JSON.parse(run.out.join('')) as InitReport;
  assert.is(report.written, false);
  assert.equal(new Set(report.files.map((f) => f.status)), new Set(['kept']));
  for (const path of paths) assert.is(readFileSync(join(dir, path), 'utf8'), theirs, path);
});

test('the bin: leap init --yes --json in a Node repository, skills from the built package, through the bundled chunk', async () => {
  const dir = makeGitRepo({ files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) } });
  const ran = await runCommand(process.execPath, [BIN, 'init', '--yes', '--json', '--skills', 'agent skills'], {
    cwd: dir,
    env: { PATH: BARE_PATH, HOME: makeTempDir() },
  });
  assert.is(ran.code, 0, ran.stderr);
  const report = JSON.parse(ran.stdout) as InitReport;
  assert.is(report.testCommand?.command, 'npm test');
  assert.is(
    readFileSync(join(dir, 'agent skills', 'tdd', 'SKILL.md'), 'utf8'),
    readFileSync(join(repoRoot, 'skills', 'tdd', 'SKILL.md'), 'utf8'),
  );
  const refused = await runCommand(process.execPath, [BIN, 'init'], {
    cwd: dirname(dir),
    env: { PATH: BARE_PATH, HOME: makeTempDir() },
  });
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /^leap: not in a git repository/);
});

test('a real terminal (a pty made by script): the questions are asked, answers typed ahead are all read, and the end of input writes nothing', async () => {
  const dir = makeGitRepo({ files: { 'go.mod': 'module m\n' } });
  const word = (w: string) => `'${w.replace(/'/g, "'\\''")}'`;
  const command = `${word(process.execPath)} ${word(BIN)} init`;
  const env = { PATH: BARE_PATH, HOME: makeTempDir(), TERM: 'dumb' };
  // The test command, globs, time limit, idle limit, title, skills, no trial, and yes to writing; timeout(1) bounds a hang.
  const typed = ['', '', '', '', 'Typed on a terminal', '', '', 'y'].map((line) => `${line}\n`).join('');
  const ran = await runCommand(which('timeout'), ['60', which('script'), '-qec', command, '/dev/null'], {
    cwd: dir,
    env,
    input: typed,
  });
  assert.is(ran.code, 0, ran.stdout + ran.stderr);
  assert.match(ran.stdout, /Test command \[go test \.\/\.\.\.\]: /);
  assert.match(ran.stdout, /Write 3 new files\? \[Y\/n\]/);
  assert.is(readProjectConfig(dir)?.config.testCommand, 'go test ./...');
  assert.is(readFileSync(join(dir, '.tdd/issues/1.md'), 'utf8').split('\n')[0], '# Typed on a terminal');
  const other = makeGitRepo();
  const before = snapshot(other);
  const ended = await runCommand(
    which('timeout'),
    ['60', which('script'), '-qec', `${command}; echo "rc=$?"`, '/dev/null'],
    { cwd: other, env, input: '\n\n' },
  );
  assert.match(ended.stdout, /leap: the terminal closed before an answer: nothing written[\s\S]*rc=1/);
  assert.is(snapshot(other), before);
});

test('--skills=DIR, a typed test command among several, and "--" before an argument', async () => {
  const dir = makeGitRepo({
    files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'Cargo.toml': '[package]\n' },
  });
  const answers = ['just test', '', '', '', '', 'n', 'y'];
  const run = io(dir);
  assert.is(await initMain(['--skills=docs/skills'], run.io, async () => answers.shift() ?? ''), 0);
  assert.is(readProjectConfig(dir)?.config.testCommand, 'just test');
  // An empty answer takes the first candidate; a known command is kept by an empty answer.
  const first = makeGitRepo({
    files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'Cargo.toml': '[package]\n' },
  });
  const blank = io(first);
  assert.is(await initMain([], blank.io, async () => ''), 0);
  assert.is(readProjectConfig(first)?.config.testCommand, 'npm test');
  const known = makeGitRepo({ files: { 'Cargo.toml': '[package]\n' } });
  assert.is(await initMain([], io(known).io, async () => ''), 0);
  assert.is(readProjectConfig(known)?.config.testCommand, 'cargo test');
  assert.ok(existsSync(join(dir, 'docs/skills/leap/SKILL.md')));
  await badInput(makeGitRepo(), ['--yes', '--', '--skills'], /unexpected argument "--skills"/);
});

test("the test command is checked to run here: a lock file's missing manager, a script's missing program, a watching script", async () => {
  const pkg = (test: string) => JSON.stringify({ scripts: { test } });
  // pnpm-lock.yaml names pnpm, which is not installed: npm runs the same script, and init says how to get pnpm.
  const lock = makeGitRepo({ files: { 'package.json': pkg('node --test'), 'pnpm-lock.yaml': '' } });
  const noPnpm = await initJson(lock, ['--yes']);
  assert.is(noPnpm.testCommand?.command, 'npm test');
  assert.match(
    noPnpm.candidates[0]?.notes[0] ?? '',
    /^pnpm-lock\.yaml names pnpm, which is not installed: `corepack enable` installs it/,
  );
  const withPnpm = makeGitRepo({ files: { 'package.json': pkg('node --test'), 'pnpm-lock.yaml': '' } });
  assert.is(
    (await initJson(withPnpm, ['--yes'], { PATH: pathWith({ ...TOOLS, pnpm: '#!/bin/sh\n' }), HOME: makeTempDir() }))
      .testCommand?.command,
    'pnpm test',
  );
  // A script that calls a program that is not installed is never written: it could not run.
  const lint = makeGitRepo({ files: { 'package.json': pkg('pnpm lint && node --test') } });
  const refused = await initJson(lint, ['--yes']);
  assert.is(refused.testCommand, null);
  assert.is(readProjectConfig(lint)?.config.testCommand, undefined);
  assert.match(
    refused.candidates[0]?.problem ?? '',
    /^the "test" script \(`pnpm lint && node --test`\) calls pnpm, which is not installed/,
  );
  assert.match(refused.blocked.join('\n'), /no test command \(the "test" script .* calls pnpm, which is not installed/);
  const deps = makeGitRepo({ files: { 'package.json': pkg('vitest') } });
  assert.match(
    (await initJson(deps, ['--yes'])).candidates[0]?.problem ?? '',
    /calls vitest, which is not installed: install it \(or the project's dependencies\)/,
  );
  // A script that would watch is proposed in its run form; one that watches among other commands is not written.
  const watch = makeGitRepo({
    files: { 'package.json': pkg('vitest --watch --reporter=dot'), 'node_modules/.bin/vitest': '#!/bin/sh\n' },
  });
  chmodSync(join(watch, 'node_modules/.bin/vitest'), 0o755);
  const run = await initJson(watch, ['--yes']);
  assert.is(run.testCommand?.command, 'npx vitest run --reporter=dot');
  assert.match(
    run.candidates[0]?.notes[0] ?? '',
    /runs `vitest --watch`, which waits for file changes instead of ending: its run form is proposed/,
  );
  const chained = makeGitRepo({ files: { 'package.json': pkg('node --watch --test && node lint.js') } });
  assert.match(
    (await initJson(chained, ['--yes'])).candidates[0]?.problem ?? '',
    /runs `node --watch`, which waits for file changes instead of ending: make it run the suite once/,
  );
});

test('--try: a trial issue with scripted agents; every printed next step, pasted into bash, works: the trial run is done and the tree clean', async () => {
  const dir = makeGitRepo({
    files: { 'package.json': JSON.stringify({ name: 'mine', scripts: { test: 'node --test' } }) },
  });
  const branch = git(dir, 'symbolic-ref', '--short', 'HEAD').trim();
  const env = { PATH: `${BARE_PATH}:${dirname(process.execPath)}`, HOME: makeTempDir() };
  const report = await initJson(dir, ['--yes', '--try'], env);
  assert.is(report.trial, 2);
  assert.match(
    report.leap,
    /^node ('[^']+|\S+)\/packages\/cli\/bin\/leap\.cjs'?$/,
    'leap is not installed in the repository: its path, quoted for a shell',
  );
  assert.equal(report.next.slice(1), [
    `${report.leap} tdd run --issue 2 --agents .leap-try/agents.json --test-cmd 'node --test leap-try/'`,
    `${report.leap} report`,
    `git checkout ${branch}`,
  ]);
  const bash = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t.invalid',
  };
  const said = report.next
    .map((step) => execFileSync('bash', ['-c', `${step} 2>&1`], { cwd: dir, env: bash, encoding: 'utf8' }))
    .join('\n');
  assert.match(said, /\ndone: 1 step of issue 2, every criterion ticked/);
  // The ledger is the run's, on its branch; the checkout went back to where the run started.
  assert.match(git(dir, 'show', 'leap/issue-2:.tdd/issue-2.md'), /- \[x\] greet\(name\) says "Hello, NAME!"/);
  assert.equal(git(dir, 'log', '--format=%s', `${branch}..leap/issue-2`).trim().split('\n'), [
    'refactor: greet(name) says "Hello, NAME!"',
    'green: greet(name) says "Hello, NAME!"',
    'red: greet(name) says "Hello, NAME!"',
    'plan: issue 2',
  ]);
  assert.ok(existsSync(join(dir, '.tdd/leap-report.html')));
  assert.is(git(dir, 'status', '--porcelain'), '');
  assert.is(git(dir, 'symbolic-ref', '--short', 'HEAD').trim(), branch);
});

test("after npm i: node_modules/ ignored by a new .gitignore, the install's files in the commit; a file of the user's is said, never committed", async () => {
  const dir = makeGitRepo({
    files: { 'package.json': JSON.stringify({ name: 'p', scripts: { test: 'node --test' } }) },
  });
  // What `npm i -D` of the toolchain leaves: node_modules/, a changed package.json, a new lock file.
  mkdirSync(join(dir, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'x', 'index.js'), '');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'p', scripts: { test: 'node --test' }, devDependencies: { x: '1' } }),
  );
  writeFileSync(join(dir, 'package-lock.json'), '{}');
  writeFileSync(join(dir, 'notes.txt'), 'mine\n');
  const report = await initJson(dir, ['--yes', '--try']);
  assert.is(readFileSync(join(dir, '.gitignore'), 'utf8'), 'node_modules/\n');
  assert.match(report.next[0] ?? '', /^git add -- .*\.gitignore.* package\.json package-lock\.json && git commit/);
  assert.not.match(report.next[0] ?? '', /notes\.txt|node_modules/);
  assert.equal(report.next.length, 1, 'no run can start from this tree: none is printed');
  assert.match(
    report.blocked[0] ?? '',
    /^the work tree has changes that are not leap's \(notes\.txt\): a run starts only from a clean tree, so commit or stash them$/,
  );
});

test('what a person reads: the plan with its notes and refusals, then the end for a ready run, a trial, a blocked one', async () => {
  const env = (agents: Record<string, string>, extra: Record<string, string> = {}) => ({
    PATH: pathWith({ ...TOOLS, ...agents }),
    HOME: makeTempDir(),
    ...extra,
  });
  const ready = env({ claude: '#!/bin/sh\n', gemini: '#!/bin/sh\n' }, { ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k' });
  // Ready: a lock file's missing manager noted, the run's command last; kept files named as kept.
  const lock = makeGitRepo({
    files: {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'yarn.lock': '',
      '.tdd/issues/1.md': '# Mine\n',
    },
  });
  const one = await init(lock, ['--yes'], ready);
  assert.match(
    one.out,
    /^Test command: npm test \(detected: package\.json has a "test" script \(yarn\.lock\)\)\n {2}note: yarn\.lock names yarn, which is not installed/m,
  );
  assert.match(one.out, /^ {2}claude {2}installed at .*, logged in \(ANTHROPIC_API_KEY is set\)$/m);
  assert.match(one.out, /^--- \.tdd\/issues\/1\.md \(first issue\): exists, kept as it is$/m);
  assert.match(
    one.out,
    /\nWrote 3 files, kept 1 that existed\.\nNext: edit \.tdd\/issues\/1\.md \(its title, text and criteria\), then:\n {2}git add -- .*\n {2}.* tdd run --issue 1\n\n$/,
  );
  // A trial beside a ready run: the trial's steps, then the real run.
  const both = await init(
    makeGitRepo({ files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) } }),
    ['--yes', '--try'],
    ready,
  );
  assert.match(both.out, /^--- \.leap-try\/developer\.json \(trial developer moves, \d+ bytes\)$/m);
  assert.match(
    both.out,
    /\nNext, to try the loop now with scripted agents \(issue 2, on branch leap\/issue-2\):\n(?: {2}.*\n){4}Then edit \.tdd\/issues\/1\.md \(its title, text and criteria\), and run it:\n {2}.* tdd run --issue 1\n\n$/,
  );
  // Blocked, with the test command refused: what is missing, and the way to try the loop.
  const none = await init(makeGitRepo({ files: { Makefile: 'test:\n\ttrue\n' } }), ['--yes'], {
    PATH: pathWith(),
    HOME: makeTempDir(),
  });
  assert.match(
    none.out,
    /^Test command: none .*\n {2}not written: make test: make is not installed \(not on PATH\): install it, or give the test command with --test-cmd$/m,
  );
  assert.match(
    none.out,
    /\nNext:\n {2}git add -- .*\nBefore a real run of issue 1 \(edit \.tdd\/issues\/1\.md first\):\n {2}- no agent CLI[^\n]*\n {2}- no test command \(make is not installed[^\n]*\nTo try the loop now, with scripted agents and no model: .* init --try \(or .* demo, on a sample project\)\.\n\n$/,
  );
  // A script that starts its runner through npx needs it installed in the project.
  const npx = makeGitRepo({ files: { 'package.json': JSON.stringify({ scripts: { test: 'npx vitest run' } }) } });
  assert.match(
    (await initJson(npx, ['--yes'])).candidates[0]?.problem ?? '',
    /calls npx vitest, and vitest is not installed in node_modules/,
  );
});

test("an agents file written beside the user's kept config that does not name it: init says to add it", async () => {
  const dir = makeGitRepo({ files: { 'leap.config.json': '{"testCommand": "make check"}\n' } });
  const env = {
    PATH: pathWith({ ...TOOLS, claude: '#!/bin/sh\n', gemini: '#!/bin/sh\n' }),
    HOME: makeTempDir(),
    ANTHROPIC_API_KEY: 'k',
    GEMINI_API_KEY: 'k',
  };
  const report = await initJson(dir, ['--yes'], env);
  assert.ok(existsSync(join(dir, 'leap.agents.json')));
  assert.equal(report.blocked, [
    'leap.config.json is yours and was kept: add "agents": "leap.agents.json" to it, so the run reads the agents file',
  ]);
  // Everything else is ready: the config names the agents file, and the real run's command is printed.
  const ready = makeGitRepo({ files: { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) } });
  const runs = await initJson(ready, ['--yes'], env);
  assert.equal(runs.blocked, []);
  assert.match(runs.next.at(-1) ?? '', / tdd run --issue 1$/);
});

test("the printed leap command is the one that works from the repository: npx leap for the project's own, leap on PATH", async () => {
  const bin = join(repoRoot, 'packages', 'cli', 'bin', 'leap.cjs');
  const local = makeGitRepo();
  mkdirSync(join(local, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(bin, join(local, 'node_modules', '.bin', 'leap'));
  assert.is((await initJson(local, ['--yes'])).leap, 'npx leap');
  const onPath = pathWith(TOOLS);
  symlinkSync(bin, join(onPath, 'leap'));
  assert.is((await initJson(makeGitRepo(), ['--yes'], { PATH: onPath, HOME: makeTempDir() })).leap, 'leap');
});

test.run();

// leap-jury's jurors in the sandbox, by default (CONTRACT section 13): a juror that writes, commits and reads
// the state folder changes nothing of the repository, so its verdict counts; without bwrap the jury refuses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo, runBin } from '@leap/test-utils';
import { conveneJury } from '../src/index.js';
import { juryBin, verifyEnv, writeAgents } from './helpers.js';

const PASS = { verdict: 'pass', lens: 'defect', findings: [], reasoning: 'checked greet and its test' };

// A juror that edits the candidate, plants a file, commits, deletes .git/HEAD and reads the state folder; then passes.
const HOSTILE_JUROR = `
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const seen = {};
const attempt = (name, fn) => { try { seen[name] = fn() ?? 'ok'; } catch (e) { seen[name] = e.code ?? String(e.message).split('\\n')[0]; } };
fs.readFileSync(0);
attempt('candidate', () => fs.writeFileSync('src/greet.js', 'changed\\n'));
attempt('planted', () => fs.writeFileSync('notes.txt', 'mine\\n'));
attempt('commit', () => { execFileSync('git', ['add', '-A'], { stdio: 'pipe' }); execFileSync('git', ['commit', '-qm', 'juror'], { stdio: 'pipe' }); });
attempt('head', () => fs.rmSync('.git/HEAD'));
attempt('events', () => fs.readFileSync('.tdd/events.jsonl', 'utf8'));
process.stdout.write(JSON.stringify({ ...${JSON.stringify(PASS)}, reasoning: 'checked greet: ' + JSON.stringify(seen) }));
`;

const jury = suite('sandboxed jurors');
jury.after.each(cleanupTempDirs);

const base = {
  builderFamily: 'anthropic',
  intent: 'greet says hello',
  criteria: 'greet() returns "hello"',
  files: ['src/greet.js'],
  tests: ['test/greet.test.js'],
};

function setup() {
  const repo = makeGitRepo({
    files: {
      '.gitignore': '.tdd/\n',
      'src/greet.js': 'export const greet = () => "hello";\n',
      'test/greet.test.js': 'assert(greet() === "hello");\n',
    },
  });
  const agents = writeAgents({
    hostile: { plugin: 'command', family: 'f1', command: ['node', '-e', HOSTILE_JUROR] },
    plain: {
      plugin: 'command',
      family: 'f2',
      command: ['bash', '-c', `cat > /dev/null; printf '%s' '${JSON.stringify(PASS)}'`],
    },
  });
  const env = verifyEnv({ VERI_AGENTS: agents });
  delete env.VERI_ISSUE;
  return { repo, env };
}

jury(
  "a juror's writes, commit and deletion land in its throwaway copy: the repository is unchanged and the verdicts count",
  async () => {
    const { repo, env } = setup();
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const result = await conveneJury({ ...base, reviewers: ['hostile', 'plain'], cwd: repo, env });
    assert.is(result.value, 1, result.reason);
    const hostile = result.seats.find((s) => s.reviewer === 'hostile');
    const seen = JSON.parse(/checked greet: (\{.*\})/.exec(hostile?.reasoning ?? '')?.[1] ?? '{}') as Record<
      string,
      string
    >;
    // Its copy took the edits; .git is read-only (no commit, no deletion); the state folder is not there.
    assert.equal(
      [seen.candidate, seen.planted, seen.head, seen.events],
      ['ok', 'ok', 'EROFS', 'ENOENT'],
      hostile?.reasoning,
    );
    assert.ok(seen.commit !== 'ok', `the commit failed: ${seen.commit}`);
    assert.is(readFileSync(join(repo, 'src', 'greet.js'), 'utf8'), 'export const greet = () => "hello";\n');
    assert.not.ok(existsSync(join(repo, 'notes.txt')));
    assert.is(git(repo, 'rev-parse', 'HEAD').trim(), head);
    assert.is(git(repo, 'status', '--porcelain').trim(), '');
    const launches = readEvents(join(repo, '.tdd', 'events.jsonl'))
      .map((r) => r.event)
      .filter((e) => e.event === 'launch') as Record<string, unknown>[];
    assert.equal(
      launches.map((e) => [e.sandbox, e.sandbox_role]),
      [
        ['bwrap', 'reader'],
        ['bwrap', 'reader'],
      ],
    );
  },
);

jury(
  'without bwrap leap-jury refuses with exit 2 before any juror starts; --sandbox off seats them unsandboxed',
  async () => {
    const { repo, env } = setup();
    writeFileSync(join(repo, 'README.md'), 'dirty\n');
    const args = [
      '--builder-family',
      'anthropic',
      '--reviewers',
      'plain,hostile',
      '--intent',
      base.intent,
      '--criteria',
      base.criteria,
      'src/greet.js',
    ];
    const refused = await runBin(juryBin, args, { cwd: repo, env: { ...env, LEAP_BWRAP: '/nonexistent/bwrap' } });
    assert.is(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /^leap-jury: cannot sandbox the leaf: bwrap \(bubblewrap\) is not installed .*apt-get install bubblewrap, or run with --sandbox off\n$/,
    );
    assert.not.ok(existsSync(join(repo, '.tdd', 'events.jsonl')), 'nothing was started or recorded');
    // Unsandboxed, the hostile juror's writes reach the repository, and the jury's own check voids the verdicts.
    const off = await runBin(juryBin, ['--sandbox', 'off', ...args], {
      cwd: repo,
      env: { ...env, LEAP_BWRAP: '/nonexistent/bwrap' },
    });
    assert.is(off.code, 2, off.stdout);
    assert.match(off.stdout, /jury: 0: hold: the candidate changed during the review/);
    const launches = readEvents(join(repo, '.tdd', 'events.jsonl'))
      .map((r) => r.event)
      .filter((e) => e.event === 'launch') as Record<string, unknown>[];
    assert.equal(
      launches.map((e) => e.sandbox),
      ['off', 'off'],
    );
  },
);

jury.run();

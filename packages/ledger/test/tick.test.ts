// tick and clear-refactor-pending: one commit with the work and the ledger line, or nothing at all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { clearRefactor, tick } from '../src/transaction.js';
import {
  cleanEnv,
  conflictOn,
  fileAt,
  head,
  installHook,
  ledger,
  ledgerText,
  leftovers,
  makeLedgerRepo,
  readTickEvents,
  rejects,
  script,
  snapshot,
  stage,
  type StepSpec,
} from './helpers.js';

const STEPS: StepSpec[] = [
  ['done', 'Parse the config'],
  ['todo', 'Validate the config', 2],
  ['todo', "Don't crash on $HOME"],
];
const LEDGER = '.tdd/issue-7.md';

async function expectError(promise: Promise<unknown>, exitCode: number, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, exitCode, (error as Error).message);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable('expected an error');
}

// ---
const tickSuite = suite('tick');
tickSuite.after.each(cleanupTempDirs);

tickSuite('commits the staged work and the ticked line in ONE commit; index and working tree agree', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  const before = head(dir);
  stage(dir, 'src/config.js', 'export const ok = true;\n');
  const result = await tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() });
  assert.is(result.commit, head(dir));
  assert.equal(
    result.head,
    { sha: result.commit, subject: 'green: Validate the config' },
    'no post-commit hook: HEAD is the commit',
  );
  assert.is(git(dir, 'rev-parse', 'HEAD^').trim(), before);
  assert.is(git(dir, 'show', '--format=', '--name-only', 'HEAD'), '.tdd/issue-7.md\nsrc/config.js\n');
  assert.is(git(dir, 'log', '-1', '--format=%B'), 'green: Validate the config\n\n');
  const committed = fileAt(dir, 'HEAD', LEDGER) as string;
  assert.match(committed, /- \[x\] Validate the config <!-- criterion: 2 --> <!-- refactor-pending -->\n/);
  assert.is(readFileSync(join(dir, LEDGER), 'utf8'), committed);
  assert.is(git(dir, 'status', '--porcelain', '--untracked-files=no'), '');
  assert.is(git(dir, 'write-tree').trim(), git(dir, 'rev-parse', 'HEAD^{tree}').trim());
  assert.equal(leftovers(dir), []);
  assert.match(git(dir, 'reflog', '-1', '--format=%gs'), /^commit: green: Validate the config/);
  const events = await readTickEvents(dir);
  assert.is(events.length, 1);
  assert.equal(
    { ...events[0], ts: undefined },
    {
      ts: undefined,
      event: 'tick',
      issue: 7,
      step: 'Validate the config',
      skill_commit: null,
      action: 'tick',
      title: 'Validate the config',
      commit: result.commit,
      file: join(dir, LEDGER),
    },
  );
});

tickSuite('a refused tick changes nothing: unknown title, done step, nothing staged', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  const before = snapshot(dir);
  await expectError(
    tick({ issue: 7, step: 'validate the config', cwd: dir, env: cleanEnv() }),
    2,
    /no step titled "validate the config" .*did you mean "Validate the config" \(line 8\)/,
  );
  await expectError(
    tick({ issue: 7, step: 'Parse the config', cwd: dir, env: cleanEnv() }),
    2,
    /issue-7\.md:7: cannot tick step "Parse the config": expected a todo step, found a done one/,
  );
  assert.equal(snapshot(dir), before);
  git(dir, 'reset', '-q');
  const clean = snapshot(dir);
  await expectError(
    tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
    4,
    /nothing staged: stage the step's work/,
  );
  assert.equal(snapshot(dir), clean);
  assert.equal(leftovers(dir), []);
  assert.equal(await readTickEvents(dir), []);
  const empty = await tick({
    issue: 7,
    step: 'Validate the config',
    allowEmpty: true,
    message: 'tick only',
    cwd: dir,
    env: cleanEnv(),
  });
  assert.is(git(dir, 'show', '--format=%s', '--name-only', empty.commit), 'tick only\n\n.tdd/issue-7.md\n');
});

tickSuite(
  'a held index.lock, unmerged paths, an unborn HEAD and a ledger outside any repository are refused',
  async () => {
    const { dir } = makeLedgerRepo(STEPS, { files: { 'f.txt': 'base\n' } });
    stage(dir, 'a.txt', 'a\n');
    const before = snapshot(dir);
    writeFileSync(join(dir, '.git', 'index.lock'), 'held by someone else');
    await expectError(
      tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
      4,
      /index\.lock': File exists/,
    );
    assert.is(
      readFileSync(join(dir, '.git', 'index.lock'), 'utf8'),
      'held by someone else',
      'a lock that is not ours is never removed',
    );
    rmSync(join(dir, '.git', 'index.lock'));
    assert.equal(snapshot(dir), before);

    git(dir, 'commit', '-q', '-m', 'a');
    conflictOn(dir, 'f.txt');
    const state = () => ({
      head: head(dir),
      ledger: readFileSync(join(dir, LEDGER), 'utf8'),
      files: git(dir, 'ls-files', '-s'),
    });
    const conflicted = state();
    // Refused as unmerged, ledger, index and HEAD as they were, nothing of the tick left.
    const refusedUnmerged = async (allowEmpty: boolean) => {
      await expectError(
        tick({ issue: 7, step: 'Validate the config', allowEmpty, cwd: dir, env: cleanEnv() }),
        4,
        /unmerged files/,
      );
      assert.equal(state(), conflicted);
      assert.equal(leftovers(dir), []);
    };
    await refusedUnmerged(false);
    // --allow-empty skips the check for staged work; git commit still refuses unmerged paths, undone the same way.
    await refusedUnmerged(true);
    // git commit refuses unmerged paths before it runs a hook.
    installHook(dir, 'pre-commit', `#!/bin/sh\necho ran >> "${join(dir, 'hook-ran')}"\n`);
    await refusedUnmerged(true);
    assert.not.ok(existsSync(join(dir, 'hook-ran')), 'no hook runs on unmerged paths');
    rmSync(join(dir, '.git', 'hooks', 'pre-commit'));

    const unborn = makeTempDir();
    git(unborn, 'init', '-q', '-b', 'main');
    mkdirSync(join(unborn, '.tdd'));
    writeFileSync(join(unborn, LEDGER), ledgerText(STEPS));
    await expectError(
      tick({ issue: 7, step: 'Validate the config', cwd: unborn, env: cleanEnv() }),
      4,
      /has no commit yet \(HEAD is unborn\)/,
    );
    assert.is(readFileSync(join(unborn, LEDGER), 'utf8'), ledgerText(STEPS));

    const outside = makeTempDir();
    writeFileSync(join(outside, 'l.md'), ledgerText(STEPS));
    await expectError(
      tick({ ledger: join(outside, 'l.md'), step: 'Validate the config', cwd: dir, env: cleanEnv() }),
      2,
      /is not inside a git working tree/,
    );
    await expectError(
      tick({ step: 'Validate the config', cwd: dir, env: cleanEnv() }),
      2,
      /tick: expected --issue N or --ledger FILE \(or VERI_ISSUE/,
    );
    await expectError(
      tick({ issue: 7, step: 'Validate the config', message: ' \n\n', cwd: dir, env: cleanEnv() }),
      2,
      /commit message/,
    );
  },
);

tickSuite('an untracked, even ignored, ledger is added by its first tick; VERI_ISSUE names it', async () => {
  const dir = makeGitRepo({ files: { '.gitignore': '.tdd/\n' } });
  mkdirSync(join(dir, '.tdd'));
  writeFileSync(join(dir, LEDGER), ledgerText(STEPS));
  stage(dir, 'a.txt', 'a\n');
  const result = await tick({
    step: 'Validate the config',
    cwd: dir,
    env: cleanEnv({ VERI_ISSUE: '7', VERI_SKILL_COMMIT: 'abc123' }),
  });
  assert.is(git(dir, 'show', '--format=', '--name-status', result.commit), 'A\t.tdd/issue-7.md\nA\ta.txt\n');
  assert.is(git(dir, 'status', '--porcelain', '--untracked-files=no'), '');
  const [event] = await readTickEvents(dir);
  assert.is(event?.skill_commit, 'abc123');
});

tickSuite('-m sets the message, cleaned as git commit -m cleans it', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  await tick({
    issue: '7',
    step: "Don't crash on $HOME",
    message: '\n  Fix: $HOME `id` "x"   \n\n\n\nbody line\t\n\n',
    cwd: dir,
    env: cleanEnv(),
  });
  assert.is(git(dir, 'log', '-1', '--format=%B'), '  Fix: $HOME `id` "x"\n\nbody line\n\n');
});

tickSuite(
  'a tick with --allow-empty runs three git processes; a wrong HEAD given is refused; a changed config is read again',
  async () => {
    const { dir } = makeLedgerRepo(STEPS);
    // git through a wrapper that notes each subcommand.
    const bin = makeTempDir();
    const calls = join(bin, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$1" >> '${calls}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const env = cleanEnv({ PATH: `${bin}:${process.env.PATH}` });
    const run = async (step: string, given: string) => {
      rmSync(calls, { force: true });
      const done = await tick({ issue: 7, step, allowEmpty: true, head: given, cwd: dir, env });
      return { done, calls: readFileSync(calls, 'utf8').split('\n').filter(Boolean) };
    };
    const first = await run('Validate the config', head(dir));
    assert.equal(first.calls, ['rev-parse', '-c', 'log'], 'rev-parse, git -c maintenance.auto=false commit, log');
    await clearRefactor({ issue: 7, step: 'Validate the config', allowEmpty: true, cwd: dir, env });
    const before = snapshot(dir);
    stage(dir, 'a.txt', 'a\n');
    const staged = snapshot(dir);
    const wrong = await rejects(
      () => run("Don't crash on $HOME", `${before.head.slice(0, -1)}${before.head.endsWith('0') ? '1' : '0'}`),
      /./,
    );
    assert.ok(wrong instanceof Error);
    assert.equal(snapshot(dir), staged, 'a refused tick leaves ledger and index as they were');
    assert.equal(leftovers(dir), []);
    git(dir, 'commit', '-q', '-m', 'moves HEAD');
    const moved = await rejects(
      () => run("Don't crash on $HOME", before.head),
      /HEAD moved while the commit was being made/,
    );
    assert.is((moved as { exitCode?: number }).exitCode, 4);
    const second = await run("Don't crash on $HOME", head(dir));
    assert.equal(second.calls, ['rev-parse', '-c', 'log']);
    assert.is(git(dir, 'log', '-1', '--format=%s'), "green: Don't crash on $HOME\n");
    // core.hooksPath set since: the config is read again, and its hook refuses.
    await clearRefactor({ issue: 7, step: "Don't crash on $HOME", allowEmpty: true, cwd: dir, env });
    const hooks = makeTempDir();
    installHook(dir, 'pre-commit', '#!/bin/sh\nexit 3\n', hooks);
    git(dir, 'config', 'core.hooksPath', hooks);
    writeFileSync(join(dir, LEDGER), ledgerText([...STEPS, ['todo', 'One more']]));
    git(dir, 'add', LEDGER);
    git(dir, 'commit', '-q', '--no-verify', '-m', 'one more step');
    await expectError(
      tick({ issue: 7, step: 'One more', allowEmpty: true, head: head(dir), cwd: dir, env }),
      4,
      /the commit was refused \(git commit exited 1\)/,
    );
  },
);

tickSuite.run();

// ---
const hookSuite = suite('tick: commit hooks');
hookSuite.after.each(cleanupTempDirs);

hookSuite('a failing pre-commit hook refuses the commit and changes nothing; its output reaches stderr', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  installHook(dir, 'pre-commit', '#!/bin/sh\necho "lint: 3 problems" >&2\necho "from stdout"\nexit 1\n');
  const before = snapshot(dir);
  const ledgerInode = statSync(join(dir, LEDGER)).ino;
  const result = await ledger(dir, ['tick', '7', '--step', 'Validate the config']);
  assert.is(result.code, 4);
  assert.is(result.stdout, '');
  assert.is(
    result.stderr,
    'leap-ledger: the commit was refused (git commit exited 1); nothing was committed:\nlint: 3 problems\nfrom stdout\n',
  );
  assert.equal(snapshot(dir), before);
  assert.is(statSync(join(dir, LEDGER)).ino, ledgerInode, 'the very same ledger file is back');
  assert.equal(leftovers(dir), []);
  assert.equal(await readTickEvents(dir), []);
});

hookSuite(
  'pre-commit sees the index being committed, and what it stages is committed; message hooks edit the message',
  async () => {
    const { dir } = makeLedgerRepo(STEPS);
    stage(dir, 'a.txt', 'a\n');
    installHook(
      dir,
      'pre-commit',
      '#!/bin/sh\ngit diff --cached --name-only > staged-seen.txt\necho formatted > fmt.txt\ngit add fmt.txt\n',
    );
    installHook(dir, 'prepare-commit-msg', '#!/bin/sh\nprintf "%s|%s\\n" "$(basename "$1")" "$2" > prepare-args.txt\n');
    installHook(dir, 'commit-msg', '#!/bin/sh\nprintf "\\nSigned-off-by: hook\\n" >> "$1"\n');
    installHook(
      dir,
      'post-commit',
      '#!/bin/sh\ngit rev-parse HEAD > post-commit-head.txt\ngit diff --cached --name-only > post-commit-staged.txt\n',
    );
    const result = await tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() });
    assert.is(readFileSync(join(dir, 'staged-seen.txt'), 'utf8'), '.tdd/issue-7.md\na.txt\n');
    assert.is(git(dir, 'show', '--format=', '--name-only', 'HEAD'), '.tdd/issue-7.md\na.txt\nfmt.txt\n');
    assert.is(readFileSync(join(dir, 'prepare-args.txt'), 'utf8'), 'COMMIT_EDITMSG|message\n');
    assert.is(git(dir, 'log', '-1', '--format=%B'), 'green: Validate the config\n\nSigned-off-by: hook\n\n');
    assert.is(readFileSync(join(dir, 'post-commit-head.txt'), 'utf8'), `${result.commit}\n`);
    assert.is(readFileSync(join(dir, 'post-commit-staged.txt'), 'utf8'), '');
    assert.is(result.head, null, 'a post-commit hook ran after the commit: HEAD is for the caller to read');
  },
);

hookSuite(
  '--no-verify skips pre-commit and commit-msg; core.hooksPath is honoured; a hook without #! runs through sh',
  async () => {
    const { dir } = makeLedgerRepo(STEPS);
    stage(dir, 'a.txt', 'a\n');
    installHook(dir, 'pre-commit', '#!/bin/sh\nexit 1\n');
    installHook(dir, 'commit-msg', '#!/bin/sh\nexit 1\n');
    const skipped = await ledger(dir, ['tick', '--issue', '7', '--step', 'Validate the config', '--no-verify']);
    assert.is(skipped.code, 0, skipped.stderr);
    const hooks = join(dir, 'my-hooks');
    git(dir, 'config', 'core.hooksPath', hooks);
    installHook(dir, 'pre-commit', 'echo "shell hook ran" > sh-hook.txt\nexit 0\n', hooks);
    writeFileSync(join(hooks, 'commit-msg'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(hooks, 'commit-msg'), 0o644);
    stage(dir, 'b.txt', 'b\n');
    const ran = await ledger(dir, ['tick', '--issue', '7', '--step', "Don't crash on $HOME"]);
    assert.is(ran.code, 0, ran.stderr);
    assert.is(readFileSync(join(dir, 'sh-hook.txt'), 'utf8'), 'shell hook ran\n');
    assert.match(
      ran.stderr,
      /hint: The '.*my-hooks\/commit-msg' hook was ignored because it's not set as executable\./,
    );
  },
);

hookSuite('a commit-msg hook that fails, or empties the message, refuses the commit', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  const before = snapshot(dir);
  installHook(dir, 'commit-msg', '#!/bin/sh\nexit 3\n');
  await expectError(
    tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
    4,
    /the commit was refused \(git commit exited 1\); nothing was committed/,
  );
  installHook(dir, 'commit-msg', '#!/bin/sh\n: > "$1"\n');
  await expectError(
    tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
    4,
    /empty commit message/,
  );
  assert.equal(snapshot(dir), before);
  assert.equal(leftovers(dir), []);
});

hookSuite('a hook that cannot be run refuses; an unreadable event log or run context only warns', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  mkdirSync(join(dir, '.git', 'hooks', 'pre-commit'), { recursive: true });
  const before = snapshot(dir);
  await expectError(
    tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
    4,
    /cannot exec '.*pre-commit'/,
  );
  assert.equal(snapshot(dir), before);
  rmSync(join(dir, '.git', 'hooks', 'pre-commit'), { recursive: true });
  mkdirSync(join(dir, '.tdd', 'events.jsonl'));
  const warned = await ledger(dir, ['tick', '7', '--step', 'Validate the config'], { env: { VERI_TIMEOUT: 'soon' } });
  assert.is(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /leap-ledger: warning: could not append to .*events\.jsonl: /);
  rmSync(join(dir, '.tdd', 'events.jsonl'), { recursive: true });
  stage(dir, 'b.txt', 'b\n');
  await tick({
    issue: 7,
    step: "Don't crash on $HOME",
    cwd: dir,
    env: cleanEnv({ VERI_TIMEOUT: 'soon', VERI_STEP: 'other' }),
  });
  const [event] = await readTickEvents(dir);
  assert.equal([event?.action, event?.step, event?.title], ['tick', "Don't crash on $HOME", "Don't crash on $HOME"]);
});

hookSuite('HEAD moved by someone during the tick: refused, nothing of the tick remains', async () => {
  const { dir } = makeLedgerRepo(STEPS);
  stage(dir, 'a.txt', 'a\n');
  installHook(
    dir,
    'pre-commit',
    '#!/bin/sh\nc=$(git commit-tree "HEAD^{tree}" -p HEAD -m sneaky)\ngit update-ref HEAD "$c"\n',
  );
  const ledgerBefore = readFileSync(join(dir, LEDGER), 'utf8');
  const staged = git(dir, 'diff', '--cached', '--name-only');
  await expectError(
    tick({ issue: 7, step: 'Validate the config', cwd: dir, env: cleanEnv() }),
    4,
    /cannot lock ref 'HEAD'/,
  );
  assert.is(git(dir, 'log', '-1', '--format=%s'), 'sneaky\n');
  assert.is(readFileSync(join(dir, LEDGER), 'utf8'), ledgerBefore);
  assert.is(git(dir, 'diff', '--cached', '--name-only', 'HEAD^'), staged);
  assert.equal(leftovers(dir), []);
});

hookSuite.run();

// ---
const clearSuite = suite('clearRefactor');
clearSuite.after.each(cleanupTempDirs);

clearSuite('removes the marker in the refactor commit; refuses a step that is not refactor-pending', async () => {
  const { dir } = makeLedgerRepo([
    ['refactor-pending', 'Parse the config', 1],
    ['todo', 'Next'],
  ]);
  stage(dir, 'src/parse.js', 'refactored\n');
  const result = await clearRefactor({ issue: 7, step: 'Parse the config', cwd: dir, env: cleanEnv() });
  assert.is(git(dir, 'log', '-1', '--format=%s'), 'refactor: Parse the config\n');
  assert.match(
    fileAt(dir, result.commit, LEDGER) as string,
    /\n- \[x\] Parse the config <!-- criterion: 1 -->\n- \[ \] Next\n/,
  );
  stage(dir, 'x.txt', 'x\n');
  await expectError(
    clearRefactor({ issue: 7, step: 'Parse the config', cwd: dir, env: cleanEnv() }),
    2,
    /cannot clear refactor-pending on step "Parse the config": expected a refactor-pending step, found a done one/,
  );
  const [event] = await readTickEvents(dir);
  assert.equal([event?.action, event?.commit], ['clear-refactor-pending', result.commit]);
});

clearSuite.run();

// ---
const binSuite = suite('tick and clear-refactor-pending (bin and drop-in scripts)');
binSuite.after.each(cleanupTempDirs);

binSuite(
  'hostile titles are matched exactly and committed byte for byte through the bin and tick-ledger.sh',
  async () => {
    const titles = hostileTitles(10, 5);
    const { dir } = makeLedgerRepo(titles.map((t) => ['todo', t] as StepSpec));
    for (const [i, title] of titles.entries()) {
      stage(dir, `work-${i}.txt`, `${i}\n`);
      const viaScript = i % 2 === 1;
      const run = viaScript
        ? await script('tick-ledger.sh', dir, ['7', '--step', title, '-m', title])
        : await ledger(dir, ['tick', '--issue', '7', '--step', title, '--message', title, '--json']);
      assert.is(run.code, 0, run.stderr);
      const commit = viaScript ? run.stdout.trim() : (JSON.parse(run.stdout) as { commit: string }).commit;
      assert.is(commit, head(dir));
      assert.is(git(dir, 'log', '-1', '--format=%B'), `${title}\n\n`);
      assert.ok((fileAt(dir, 'HEAD', LEDGER) as string).includes(`- [x] ${title} <!-- refactor-pending -->\n`));
      const current = await script('ledger-steps.sh', dir, ['current', '--issue', '7']);
      assert.is(current.stdout, `${title}\n`);
      stage(dir, `refactor-${i}.txt`, `${i}\n`);
      const cleared = viaScript
        ? await script('clear-refactor-pending.sh', dir, ['7', '--step', title])
        : await ledger(dir, ['clear-refactor-pending', '7', '--step', title]);
      assert.is(cleared.code, 0, cleared.stderr);
      assert.is(git(dir, 'log', '-1', '--format=%s'), `refactor: ${title}\n`);
    }
    const events = await readTickEvents(dir);
    assert.equal(
      events.map((e) => e.title),
      titles.flatMap((t) => [t, t]),
    );
    assert.is(git(dir, 'status', '--porcelain', '--untracked-files=no'), '');
  },
);

binSuite(
  'bad calls: missing --step, the issue twice, an extra argument; a title that starts with "-" is a value',
  async () => {
    const { dir } = makeLedgerRepo([['todo', '-v flag support']]);
    const missing = await ledger(dir, ['tick', '7']);
    assert.equal([missing.code, missing.stdout], [2, '']);
    assert.match(missing.stderr, /^leap-ledger: missing --step TITLE\nUsage: leap-ledger tick /);
    const twice = await ledger(dir, ['tick', '7', '--issue', '8', '--step', 'x']);
    assert.match(twice.stderr, /the issue is given twice/);
    const extra = await ledger(dir, ['tick', '7', '8', '--step', 'x']);
    assert.match(extra.stderr, /unexpected argument "8"/);
    stage(dir, 'a.txt', 'a\n');
    const dash = await script('tick-ledger.sh', dir, ['7', '--step', '-v flag support']);
    assert.is(dash.code, 0, dash.stderr);
    const again = await ledger(dir, ['tick', '7', '--step', '-v flag support']);
    assert.equal([again.code, again.stdout], [2, '']);
    assert.match(again.stderr, /expected a todo step, found a refactor-pending one/);
  },
);

binSuite.run();

// The sandbox's promises as checks on a scene (CONTRACT section 13, the bar of issue 25): a reader's writes never
// reach the user's tree, the state folder and its transcripts are absent, home is read-only, .git's hooks and refs
// cannot be planted, credentials and secret variables never reach a leaf. sandbox-hostile.test.ts runs them on a
// plain repository, sandbox-real-tools.slow.test.ts on real projects whose suite runs first in every leaf.
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import type { SandboxSpec } from '../src/sandbox-plan.js';
import { eventsOf } from './helpers.js';

/**
 * A folder for scenes outside /tmp (the sandbox's /tmp is its own, and a sibling repository or home must be there,
 * read-only): LEAP_SANDBOX_TEST_DIR, else the first of `bases` we may write, else the temporary folder.
 */
export function sceneRoot(bases: string[]): string {
  for (const base of [process.env.LEAP_SANDBOX_TEST_DIR, ...bases, tmpdir()]) {
    if (base === undefined) continue;
    try {
      return mkdtempSync(join(base, 'leap-sbx-'));
    } catch {
      // not writable here
    }
  }
  throw new Error('no folder for sandbox scenes');
}

export const SECRET = 'sk-live-7f3a-do-not-leak';

export interface World {
  base: string;
  repo: string;
  sibling: string;
  home: string;
  state: string;
  out: string;
  err: string;
  env: NodeJS.ProcessEnv;
  /** Run first in every leaf, quietly (a real project's suite); a leaf whose prelude fails fails its test. */
  prelude: string;
}

let count = 0;
/** A scene in `root`: a repository (filled by `fill`, which returns its prelude), a sibling, a home with secrets. */
export function world(root: string, fill?: (repo: string) => string): World {
  const base = join(root, `w${++count}`);
  const repo = join(base, 'repo');
  const sibling = join(base, 'sibling');
  const home = join(base, 'home');
  for (const [dir, files] of [
    [repo, { 'README.md': '# mine\n', 'keep.txt': 'keep\n' }],
    [sibling, { 'lib.txt': 'sibling\n' }],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'Leap Test');
    git(dir, 'config', 'user.email', 'leap@test.invalid');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'initial');
  }
  const prelude = fill?.(repo) ?? '';
  const state = join(repo, '.tdd');
  mkdirSync(state);
  writeFileSync(join(state, 'develop-red.out'), `the developer's reasoning ${SECRET}\n`);
  writeFileSync(join(state, 'issue-1.md'), '# ledger\n\n## Steps\n\n- [ ] one\n');
  for (const [path, text] of Object.entries({
    '.ssh/id_ed25519': `${SECRET} private key\n`,
    '.aws/credentials': `aws_secret_access_key=${SECRET}\n`,
    '.config/gh/hosts.yml': `oauth_token: ${SECRET}\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}\n`,
    '.netrc': `machine x password ${SECRET}\n`,
    '.codex/auth.json': `{"key":"${SECRET}"}\n`,
    '.claude/settings.json': '{}\n',
    '.bashrc': 'export A=1\n',
    '.config/tool/config': 'ok\n',
  })) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    VERI_KILL_AFTER: '0.3',
    VERI_TIMEOUT: '30',
    VERI_STATE_DIR: state,
    AWS_SECRET_ACCESS_KEY: SECRET,
    GITHUB_TOKEN: SECRET,
    REDIS_URL: `redis://:${SECRET}@127.0.0.1:6379`,
    ANTHROPIC_API_KEY: 'sk-ant-passed',
  };
  return { base, repo, sibling, home, state, out: join(base, 'leaf.out'), err: join(base, 'leaf.err'), env, prelude };
}

/** Run `script` (bash) as a sandboxed leaf of `w`, after its prelude; its stdout and stderr together. */
export async function leaf(
  w: World,
  name: string,
  script: string,
  spec: Partial<SandboxSpec> = {},
  env: NodeJS.ProcessEnv = {},
) {
  const result = await supervise({
    name,
    command: 'bash',
    args: ['-c', w.prelude === '' ? script : `{ ${w.prelude}; } >/dev/null 2>&1 || echo PRELUDE-FAILED; ${script}`],
    cwd: spec.tree ?? w.repo,
    env: { ...w.env, ...env },
    sandbox: { role: 'writer', tree: w.repo, ...spec },
    io: { stdoutFile: w.out, stderrFile: w.err },
  });
  const seen = `${readFileSync(w.out, 'utf8')}${readFileSync(w.err, 'utf8')}`;
  assert.not.ok(seen.includes('PRELUDE-FAILED'), `${name}: the prelude (${w.prelude}) failed inside the sandbox`);
  return { result, seen };
}

export function head(repo: string): string {
  return git(repo, 'rev-parse', 'HEAD').trim();
}

/** The promises, each a title and a check of a fresh scene. */
export const PROMISES: [string, (w: World) => Promise<void>][] = [
  [
    "a reader writes, deletes and renames in the user's tree: it works in its copy, the tree is untouched, the copy is gone after",
    async (w) => {
      // The copy is made under this test's own temporary folder: other programs' readers in the machine's /tmp
      // (a suite running beside this one) come and go, and must not count.
      const copies = join(w.base, 'tmp');
      mkdirSync(copies);
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = copies;
      let ran: Awaited<ReturnType<typeof leaf>>;
      try {
        ran = await leaf(
          w,
          'verify-red',
          'echo pwned > README.md && rm keep.txt && echo new > planted.txt && mkdir -p build && echo o > build/out && ls && cat README.md',
          {
            role: 'reader',
          },
        );
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      const { result, seen } = ran;
      assert.is(result.code, 0, seen);
      assert.match(seen, 'planted.txt', 'the reader could build in its copy');
      assert.match(seen, 'pwned');
      assert.is(readFileSync(join(w.repo, 'README.md'), 'utf8'), '# mine\n');
      assert.ok(existsSync(join(w.repo, 'keep.txt')));
      assert.not.ok(existsSync(join(w.repo, 'planted.txt')));
      assert.not.ok(existsSync(join(w.repo, 'build')));
      assert.equal(readdirSync(copies), [], 'every write of the reader is discarded with its copy');
      const [launch] = eventsOf({ state: w.state } as never, 'launch', 'verify-red');
      assert.equal([launch?.sandbox, launch?.sandbox_role, launch?.network], ['bwrap', 'reader', true]);
      assert.is(eventsOf({ state: w.state } as never, 'exit', 'verify-red')[0]?.sandbox, 'bwrap');
    },
  ],
  [
    "a reader reads the developer's transcript (.tdd/develop-*.out): the state folder does not exist for it",
    async (w) => {
      const { seen } = await leaf(
        w,
        'verify-green',
        'cat .tdd/develop-red.out; ls -a; ls .tdd; grep -r "do-not-leak" . 2>/dev/null; echo done',
        { role: 'reader' },
      );
      assert.not.ok(seen.includes(SECRET), seen);
      assert.match(seen, /\.tdd\/develop-red\.out: No such file or directory/);
      assert.not.ok(/^\.tdd$/m.test(seen), 'no .tdd entry in the copy');
      assert.match(seen, 'done');
    },
  ],
  [
    'a writer writes in home, a sibling repository, /etc, /usr: each is read-only; its own tree is writable',
    async (w) => {
      const { result, seen } = await leaf(
        w,
        'develop-green',
        [
          `echo x > "$HOME/planted"`,
          `echo x >> "$HOME/.bashrc"`,
          `echo x > ${w.sibling}/lib.txt`,
          `echo x > ${w.sibling}/new.txt`,
          'echo x > /etc/leap-planted',
          'echo x >> /etc/hostname',
          'echo mine > mine.txt',
          'echo ok',
        ]
          .map((c) => `${c} 2>&1`)
          .join('; '),
      );
      assert.is(result.code, 0, seen);
      assert.ok((seen.match(/Read-only file system/g) ?? []).length >= 6, seen);
      assert.not.ok(existsSync(join(w.home, 'planted')));
      assert.is(readFileSync(join(w.home, '.bashrc'), 'utf8'), 'export A=1\n');
      assert.is(readFileSync(join(w.sibling, 'lib.txt'), 'utf8'), 'sibling\n');
      assert.not.ok(existsSync(join(w.sibling, 'new.txt')));
      assert.not.ok(existsSync('/etc/leap-planted'));
      assert.is(readFileSync(join(w.repo, 'mine.txt'), 'utf8'), 'mine\n', "the writer's own tree is written");
    },
  ],
  [
    'a writer plants .git/hooks/pre-commit, moves a ref, edits .git/config: .git is read-only, and no hook runs at the next commit',
    async (w) => {
      const before = head(w.repo);
      const config = readFileSync(join(w.repo, '.git', 'config'), 'utf8');
      const { seen } = await leaf(
        w,
        'develop-red',
        [
          `printf '#!/bin/sh\\ntouch ${w.base}/hook-ran\\n' > .git/hooks/pre-commit`,
          'chmod +x .git/hooks/pre-commit',
          'git update-ref refs/heads/main HEAD~0^{tree}',
          'echo 0000000000000000000000000000000000000000 > .git/refs/heads/main',
          'git branch evil',
          'git config core.hooksPath /tmp',
          'echo "[core]" >> .git/config',
          'git commit --allow-empty -m sneaky',
          'echo end',
        ]
          .map((c) => `${c} 2>&1`)
          .join('; '),
      );
      assert.match(seen, 'Read-only file system');
      assert.match(seen, 'end');
      assert.not.ok(existsSync(join(w.repo, '.git', 'hooks', 'pre-commit')), seen);
      assert.is(head(w.repo), before, 'no ref moved');
      assert.not.ok(git(w.repo, 'branch', '--list', 'evil').trim(), 'no branch made');
      assert.is(readFileSync(join(w.repo, '.git', 'config'), 'utf8'), config);
      writeFileSync(join(w.repo, 'next.txt'), 'next\n');
      git(w.repo, 'add', 'next.txt');
      git(w.repo, 'commit', '-q', '-m', 'the conductor commits');
      assert.not.ok(existsSync(join(w.base, 'hook-ran')), 'no hook ran at the next commit');
    },
  ],
  [
    "a writer edits the state folder (ledger, event log, another leaf's files): it is empty and read-only; nothing changes",
    async (w) => {
      const ledger = readFileSync(join(w.state, 'issue-1.md'), 'utf8');
      const { seen } = await leaf(
        w,
        'develop-green',
        [
          'ls -A .tdd; echo listed',
          'echo "- [x] forged" >> .tdd/issue-1.md',
          'echo \'{"event":"verdict"}\' >> .tdd/events.jsonl',
          'echo 0 > .tdd/verify-green.exit',
          'rm -rf .tdd',
          `cat ${w.state}/develop-red.out`,
          'echo end',
        ]
          .map((c) => `${c} 2>&1`)
          .join('; '),
      );
      assert.match(seen, /^listed$/m, 'the leaf sees an empty state folder');
      assert.not.ok(seen.includes(SECRET));
      assert.is(readFileSync(join(w.state, 'issue-1.md'), 'utf8'), ledger);
      assert.not.ok(existsSync(join(w.state, 'verify-green.exit')));
      assert.ok(existsSync(join(w.state, 'develop-red.out')));
      const log = readFileSync(join(w.state, 'events.jsonl'), 'utf8');
      assert.not.ok(log.includes('{"event":"verdict"}'), 'the event log holds only what the supervisor wrote');
      assert.equal(
        eventsOf({ state: w.state } as never, 'launch').map((e) => e.leaf),
        ['develop-green'],
      );
    },
  ],
  [
    "a leaf reads ~/.ssh, ~/.aws, gh's token, ~/.npmrc, another agent's folder: absent; its own agent folder is read-write",
    async (w) => {
      const { seen } = await leaf(
        w,
        'develop-green',
        [
          'ls -A "$HOME"',
          'cat "$HOME/.ssh/id_ed25519" "$HOME/.aws/credentials" "$HOME/.config/gh/hosts.yml" "$HOME/.npmrc" "$HOME/.netrc" "$HOME/.codex/auth.json"',
          'cat "$HOME/.config/tool/config"',
          'echo written > "$HOME/.claude/session"',
          'echo end',
        ]
          .map((c) => `${c} 2>&1`)
          .join('; '),
        { agentPaths: ['.claude'] },
      );
      assert.not.ok(seen.includes(SECRET), seen);
      for (const gone of ['.ssh', '.aws', '.npmrc', '.netrc', '.codex'])
        assert.not.ok(new RegExp(`^\\${gone}$`, 'm').test(seen), `${gone} is not listed`);
      assert.ok((seen.match(/No such file or directory/g) ?? []).length >= 6, seen);
      assert.match(seen, /^ok$/m, 'the rest of ~/.config is readable');
      assert.is(readFileSync(join(w.home, '.claude', 'session'), 'utf8'), 'written\n');
      assert.ok(
        readFileSync(join(w.home, '.ssh', 'id_ed25519'), 'utf8').includes(SECRET),
        'the key itself is untouched',
      );
    },
  ],
  [
    'a leaf prints its environment: no secret variable reaches it, only the allow-list and what its entry names',
    async (w) => {
      const { seen } = await leaf(w, 'develop-green', 'env', {
        passEnv: ['ANTHROPIC_*'],
        env: { CLAUDE_CODE_ENTRYPOINT: 'sdk' },
      });
      assert.not.ok(seen.includes(SECRET), seen);
      for (const name of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'REDIS_URL'])
        assert.not.ok(seen.includes(`${name}=`), name);
      assert.match(seen, /^ANTHROPIC_API_KEY=sk-ant-passed$/m);
      assert.match(seen, /^CLAUDE_CODE_ENTRYPOINT=sdk$/m);
      assert.match(seen, new RegExp(`^HOME=${w.home}$`, 'm'));
      assert.match(
        seen,
        /^VERI_KILL_AFTER=0\.15$/m,
        "half the supervisor's grace: a supervisor nested in the leaf ends first",
      );
    },
  ],
];

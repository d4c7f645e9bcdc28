// The bwrap command line as a pure function of the spec and of a file system described as data.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dirname } from 'node:path';
import {
  bwrapArgs,
  mainRepoRoot,
  planMounts,
  sandboxArgv,
  sandboxEnv,
  SandboxSpecError,
  type FsEntry,
  type FsView,
  type MountOp,
} from '../src/sandbox-plan.js';
import { namespaceCause, parseSandboxSetting, SandboxSettingError } from '../src/sandbox.js';

/** A file system as a list of paths: folders end in `/`, symlinks are `path -> target`, the rest are files. */
function view(paths: string[], texts: Record<string, string> = {}): FsView {
  const kinds = new Map<string, FsEntry['kind']>();
  const targets = new Map<string, string>();
  for (const raw of paths) {
    const [path, target] = raw.split(' -> ') as [string, string | undefined];
    const clean = path.replace(/\/$/, '');
    kinds.set(clean, target !== undefined ? 'symlink' : path.endsWith('/') ? 'dir' : 'file');
    if (target !== undefined) targets.set(clean, target);
    for (let up = dirname(clean); up !== '/' && !kinds.has(up); up = dirname(up)) kinds.set(up, 'dir');
  }
  for (const file of Object.keys(texts)) if (!kinds.has(file)) kinds.set(file, 'file');
  return {
    list(dir) {
      if (kinds.get(dir) !== 'dir') return null;
      return [...kinds]
        .filter(([p]) => dirname(p) === dir)
        .map(([p, kind]) => ({ name: p.slice(dir.length + 1), kind, target: targets.get(p) }));
    },
    kind: (p) => kinds.get(p) ?? (p === '/' ? 'dir' : null),
    realpath: (p) => targets.get(p) ?? (kinds.has(p) ? p : null),
    readText: (p) => texts[p] ?? null,
  };
}

const HOME = '/home/u';
const homeFs = [
  `${HOME}/.bashrc`,
  `${HOME}/.ssh/id_ed25519`,
  `${HOME}/.aws/credentials`,
  `${HOME}/.config/gh/hosts.yml`,
  `${HOME}/.config/nvim/init.lua`,
  `${HOME}/.npmrc`,
  `${HOME}/.netrc`,
  `${HOME}/.codex/auth.json`,
  `${HOME}/.claude/settings.json`,
  `${HOME}/.claude.json`,
  `${HOME}/.rustup/toolchains/`,
  `${HOME}/.cargo/bin/cargo`,
  `${HOME}/.cargo/credentials.toml`,
  `${HOME}/dots -> /elsewhere/dots`,
];
const repoFs = [
  '/w/repo/.git/HEAD',
  '/w/repo/.tdd/events.jsonl',
  '/w/repo/.leap/',
  '/w/repo/src/a.ts',
  '/w/sibling/.git/HEAD',
];

function binds(ops: MountOp[], kind: 'ro-bind' | 'bind'): string[] {
  return ops.filter((o): o is Extract<MountOp, { src: string }> => o.op === kind).map((o) => o.dest);
}

test('plan: a writer binds its tree read-write, .git read-only, the state folders empty and read-only, the rest of / read-only', () => {
  const ops = planMounts({ role: 'writer', tree: '/w/repo', home: HOME }, view([...homeFs, ...repoFs]));
  assert.equal(ops[0], { op: 'ro-bind', src: '/', dest: '/' });
  assert.ok(
    ops.some((o) => o.op === 'tmpfs' && o.dest === '/tmp'),
    'a private /tmp',
  );
  assert.ok(binds(ops, 'bind').includes('/w/repo'));
  const git = ops.findIndex((o) => o.op === 'ro-bind' && o.dest === '/w/repo/.git');
  assert.ok(
    git > ops.findIndex((o) => o.op === 'bind' && o.dest === '/w/repo'),
    '.git is bound read-only on top of the tree',
  );
  for (const state of ['/w/repo/.tdd', '/w/repo/.leap']) {
    const at = ops.findIndex((o) => o.op === 'tmpfs' && o.dest === state);
    assert.ok(at > 0, `${state} is covered`);
    assert.ok(ops.findIndex((o) => o.op === 'remount-ro' && o.dest === state) > at, `${state} is read-only`);
  }
  assert.not.ok(binds(ops, 'bind').includes('/w/sibling'), 'a sibling repository is not writable');
});

test("plan: home is read-only, every credential place and other agent CLI folder absent, the leaf's own agent folder read-write", () => {
  const ops = planMounts(
    { role: 'writer', tree: '/w/repo', home: HOME, agentPaths: ['.claude', '.claude.json'] },
    view([...homeFs, ...repoFs]),
  );
  const all = ops.flatMap((o) => ('src' in o ? [o.src, o.dest] : 'dest' in o ? [o.dest] : []));
  for (const secret of ['.ssh', '.aws', '.config/gh', '.npmrc', '.netrc', '.codex', '.cargo/credentials.toml']) {
    assert.not.ok(
      all.some((p) => p === `${HOME}/${secret}` || p.startsWith(`${HOME}/${secret}/`)),
      `${secret} is never mounted`,
    );
  }
  assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === HOME));
  assert.ok(ops.some((o) => o.op === 'remount-ro' && o.dest === HOME));
  assert.ok(binds(ops, 'ro-bind').includes(`${HOME}/.bashrc`));
  assert.ok(binds(ops, 'ro-bind').includes(`${HOME}/.rustup`), 'toolchains in home still run');
  assert.ok(
    binds(ops, 'ro-bind').includes(`${HOME}/.config/nvim`),
    'the rest of a folder holding a credential place stays',
  );
  assert.ok(binds(ops, 'ro-bind').includes(`${HOME}/.cargo/bin`));
  assert.equal(
    binds(ops, 'bind')
      .filter((p) => p.startsWith(HOME))
      .sort(),
    [`${HOME}/.claude`, `${HOME}/.claude.json`],
  );
  assert.ok(
    ops.some((o) => o.op === 'symlink' && o.dest === `${HOME}/dots` && o.target === '/elsewhere/dots'),
    'symlinks are recreated, not followed',
  );
  const other = planMounts(
    { role: 'writer', tree: '/w/repo', home: HOME, agentPaths: ['.codex'] },
    view([...homeFs, ...repoFs]),
  );
  assert.equal(
    binds(other, 'bind').filter((p) => p.startsWith(HOME)),
    [`${HOME}/.codex`],
  );
  assert.not.ok(
    other.some((o) => 'dest' in o && o.dest.startsWith(`${HOME}/.claude`)),
    "claude's folder is absent for a codex leaf",
  );
});

test("plan: the leaf's own agent folder outside home (CODEX_HOME=/srv/codex) is read-write too; absent, nothing is bound", () => {
  const fs = view([...homeFs, ...repoFs, '/srv/codex/auth.json']);
  const ops = planMounts({ role: 'writer', tree: '/w/repo', home: HOME, agentPaths: ['/srv/codex'] }, fs);
  assert.ok(binds(ops, 'bind').includes('/srv/codex'), 'bound read-write');
  const reader = planMounts({ role: 'reader', tree: '/w/repo', home: HOME, agentPaths: ['/srv/codex'] }, fs, {
    copy: '/tmp/copy',
  });
  assert.ok(
    binds(reader, 'bind').includes('/srv/codex'),
    "a reader's own CLI folder too: the CLI writes its sessions there",
  );
  const none = planMounts({ role: 'writer', tree: '/w/repo', home: HOME, agentPaths: ['/srv/nothing'] }, fs);
  assert.not.ok(
    none.some((o) => 'dest' in o && o.dest === '/srv/nothing'),
    'a place the host does not have is not mounted',
  );
});

test('plan: a home without credential places is left as / shows it (read-only), with no mount of its own', () => {
  const ops = planMounts({ role: 'writer', tree: '/w/repo', home: HOME }, view([`${HOME}/.bashrc`, ...repoFs]));
  assert.not.ok(ops.some((o) => 'dest' in o && o.dest.startsWith(HOME)));
});

test('plan: home is listed once, and the places under it the listing (or an absent folder) answers are not asked of the file system again', () => {
  const paths = [...homeFs, `${HOME}/.config/other/x`, ...repoFs];
  const plain = view(paths);
  const asked = { list: [] as string[], kind: [] as string[] };
  const counting: FsView = {
    list: (d) => (asked.list.push(d), plain.list(d)),
    kind: (p) => (asked.kind.push(p), plain.kind(p)),
    realpath: (p) => plain.realpath(p),
    readText: (p) => plain.readText(p),
  };
  const spec = { role: 'writer' as const, tree: '/w/repo', home: HOME, agentPaths: ['.codex'] };
  const ops = planMounts(spec, counting);
  // The same plan as a view asked of everything would give.
  assert.equal(ops, planMounts(spec, plain));
  assert.equal(
    asked.list.filter((d) => d === HOME),
    [HOME],
    'home is listed once',
  );
  const direct = asked.kind.filter((p) => dirname(p) === HOME);
  assert.equal(
    direct,
    [],
    `no entry of home is asked of the file system once home is listed (asked ${JSON.stringify(direct)})`,
  );
  const belowAbsent = asked.kind.filter((p) => p.startsWith(`${HOME}/.local/`));
  assert.equal(belowAbsent, [], `nothing below an absent .local is asked (asked ${JSON.stringify(belowAbsent)})`);
  // And what matters is still true: the credential places masked, the leaf's own agent folder read-write.
  assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === `${HOME}/.config`));
  assert.ok(ops.some((o) => o.op === 'bind' && o.dest === `${HOME}/.codex`));
  assert.not.ok(ops.some((o) => 'dest' in o && o.dest === `${HOME}/.config/gh`));
});

test('plan: a credential place that is a symlink empties what it points to as well', () => {
  const ops = planMounts(
    { role: 'writer', tree: '/w/repo', home: HOME },
    view([`${HOME}/.ssh -> /vault/ssh`, '/vault/ssh/', `${HOME}/.netrc -> /vault/netrc`, '/vault/netrc', ...repoFs]),
  );
  assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === '/vault/ssh'));
  assert.ok(ops.some((o) => o.op === 'ro-bind' && o.src === '/dev/null' && o.dest === '/vault/netrc'));
});

test("plan: a reader gets the copy at the tree's path, the original .git and node_modules read-only on top, nothing of the tree writable", () => {
  const ops = planMounts(
    { role: 'reader', tree: '/w/repo', home: HOME },
    view([...homeFs, ...repoFs, '/w/repo/node_modules/x/']),
    { copy: '/tmp/copy', linked: ['/w/repo/node_modules'] },
  );
  const at = ops.findIndex((o) => o.op === 'bind' && o.src === '/tmp/copy' && o.dest === '/w/repo');
  assert.ok(at > 0);
  assert.ok(
    ops.findIndex(
      (o) => o.op === 'ro-bind' && o.src === '/w/repo/node_modules/x' && o.dest === '/w/repo/node_modules/x',
    ) > at,
  );
  assert.ok(ops.findIndex((o) => o.op === 'ro-bind' && o.dest === '/w/repo/.git') > at);
  assert.not.ok(
    ops.some((o) => o.op === 'bind' && o.src === '/w/repo'),
    "the user's tree is never bound writable",
  );
  assert.not.ok(
    ops.some((o) => 'dest' in o && o.dest.startsWith('/w/repo/.tdd')),
    'the copy has no state folder to mask',
  );
  assert.throws(
    () => planMounts({ role: 'reader', tree: '/w/repo' }, view(repoFs)),
    (e: Error) => e instanceof SandboxSpecError,
  );
});

test("plan: a reader's node_modules is a throwaway layer: every entry bound read-only at its own path, the caches tools write left out", () => {
  const nm = '/w/repo/node_modules';
  const fs = view([
    ...repoFs,
    `${nm}/vitest/package.json`,
    `${nm}/.bin/vitest -> ../vitest/vitest.mjs`,
    `${nm}/.pnpm/`,
    `${nm}/pkg -> .pnpm/pkg@1/node_modules/pkg`,
    `${nm}/@scope/lib/`,
    `${nm}/@scope/ws -> ../../packages/ws`,
    `${nm}/.vite-temp/old.mjs`,
    `${nm}/.cache/x`,
    `${nm}/.vite/`,
    `${nm}/.package-lock.json`,
  ]);
  const ops = planMounts({ role: 'reader', tree: '/w/repo', home: HOME }, fs, { copy: '/tmp/copy', linked: [nm] });
  const from = ops.findIndex((o) => o.op === 'tmpfs' && o.dest === nm);
  assert.ok(from > ops.findIndex((o) => o.op === 'bind' && o.dest === '/w/repo'), 'on top of the copy');
  const inLayer = ops.slice(from + 1).filter((o) => 'dest' in o && o.dest.startsWith(`${nm}/`));
  const shown = Object.fromEntries(
    inLayer.map((o) => [
      o.dest.slice(nm.length + 1),
      o.op === 'symlink' ? `-> ${o.target}` : o.op === 'ro-bind' ? o.src : o.op,
    ]),
  );
  // Each entry at its own path (a dependency's real path is unchanged), a symlink as itself, the caches left out.
  assert.equal(shown, {
    vitest: `${nm}/vitest`,
    '.bin': `${nm}/.bin`,
    '.pnpm': `${nm}/.pnpm`,
    pkg: '-> .pnpm/pkg@1/node_modules/pkg',
    '@scope': `${nm}/@scope`,
    '.package-lock.json': `${nm}/.package-lock.json`,
  });
  assert.not.ok(
    ops.some((o) => o.op === 'remount-ro' && o.dest === nm),
    'the layer stays writable',
  );
  assert.not.ok(
    ops.some((o) => o.op === 'bind' && (o.src === nm || o.src.startsWith(`${nm}/`))),
    'the original is never writable',
  );
});

test("plan: ~/.cache is the writer's own, read-write; a reader's (and a throwaway writer's) is a layer over it", () => {
  const fs = view([...homeFs, ...repoFs, `${HOME}/.cache/go-build/00/`, `${HOME}/.cache/pip/`]);
  const writer = planMounts({ role: 'writer', tree: '/w/repo', home: HOME }, fs);
  assert.ok(binds(writer, 'bind').includes(`${HOME}/.cache`));
  for (const spec of [{ role: 'reader' as const }, { role: 'writer' as const, homeCaches: 'throwaway' as const }]) {
    const ops = planMounts({ ...spec, tree: '/w/repo', home: HOME }, fs, { copy: '/tmp/c' });
    assert.not.ok(binds(ops, 'bind').includes(`${HOME}/.cache`), spec.role);
    assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === `${HOME}/.cache`));
    assert.ok(ops.some((o) => o.op === 'ro-bind' && o.src === `${HOME}/.cache/pip` && o.dest === `${HOME}/.cache/pip`));
    // Go writes its cache on every miss: bound through, over its read-only entry (a reader's `go run` failed EROFS).
    const go = ops.findLastIndex((o) => 'dest' in o && o.dest === `${HOME}/.cache/go-build`);
    assert.equal(ops[go], { op: 'bind', src: `${HOME}/.cache/go-build`, dest: `${HOME}/.cache/go-build` });
  }
  assert.not.ok(
    planMounts({ role: 'writer', tree: '/w/repo', home: HOME }, view([...homeFs, ...repoFs])).some(
      (o) => 'dest' in o && o.dest.startsWith(`${HOME}/.cache`),
    ),
    'an absent ~/.cache is not made by the plan (prepareSandbox makes it)',
  );
});

/** The last mount that decides what `path` is inside: the last bind, tmpfs or symlink at it or above it. */
function decides(ops: MountOp[], path: string): MountOp | undefined {
  return ops
    .filter(
      (o) =>
        o.op !== 'remount-ro' &&
        o.op !== 'dev' &&
        o.op !== 'proc' &&
        'dest' in o &&
        (path === o.dest || path.startsWith(`${o.dest}/`)),
    )
    .at(-1);
}

test("plan: a reader's own agent folder below the tree (a scripted agent's claims) is the real one, over the copy", () => {
  const fs = view([
    ...homeFs,
    '/w/repo/.git/HEAD',
    '/w/repo/.agent/state/move-0',
    '/w/repo/.tdd/x/a',
    '/w/repo/src/a.ts',
  ]);
  const agentPaths = ['/w/repo/.agent/state', '/w/repo/.tdd/x', '/w/repo'];
  const ops = planMounts({ role: 'reader', tree: '/w/repo', home: HOME, agentPaths }, fs, { copy: '/tmp/c' });
  assert.equal(decides(ops, '/w/repo/.agent/state/move-0'), {
    op: 'bind',
    src: '/w/repo/.agent/state',
    dest: '/w/repo/.agent/state',
  });
  assert.equal(
    decides(ops, '/w/repo/src/a.ts'),
    { op: 'bind', src: '/tmp/c', dest: '/w/repo' },
    'the tree stays the copy',
  );
  assert.equal(
    decides(ops, '/w/repo/.tdd/x/a'),
    { op: 'bind', src: '/tmp/c', dest: '/w/repo' },
    'never into a state folder',
  );
});

test('plan: declared paths that hold the tree or lie in it never change its mode, for a writer and a reader, in home or not', () => {
  for (const tree of ['/w/repo', `${HOME}/w/repo`]) {
    const up = dirname(tree);
    const fs = view([
      ...homeFs,
      `${tree}/.git/HEAD`,
      `${tree}/.tdd/events.jsonl`,
      `${tree}/src/a.ts`,
      `${tree}/vendor/lib.ts`,
      `${up}/scripts/run.sh`,
    ]);
    for (const role of ['writer', 'reader'] as const) {
      for (const [kind, path] of [
        ['read', up],
        ['read', `${tree}/vendor`],
        ['write', up],
        ['write', `${tree}/vendor`],
        ['read', tree],
        ['write', tree],
      ] as const) {
        const what = `${role}, ${kind} ${path}`;
        const ops = planMounts(
          { role, tree, home: HOME, [kind]: [path] },
          fs,
          role === 'reader' ? { copy: '/tmp/c' } : {},
        );
        for (const inTree of [tree, `${tree}/src/a.ts`, `${tree}/vendor/lib.ts`]) {
          const op = decides(ops, inTree) as { op: string; src: string; dest: string };
          // A writer's tree is read-write (a bind of it, or of a folder holding it); a reader's is its copy.
          if (role === 'writer')
            assert.ok(
              op.op === 'bind' && op.src === op.dest && (tree === op.dest || tree.startsWith(`${op.dest}/`)),
              `${what}: ${inTree}`,
            );
          else assert.equal(op, { op: 'bind', src: '/tmp/c', dest: tree }, `${what}: ${inTree}`);
        }
        assert.equal(
          decides(ops, `${tree}/.git/HEAD`),
          { op: 'ro-bind', src: `${tree}/.git`, dest: `${tree}/.git` },
          what,
        );
        if (role === 'writer') assert.is(decides(ops, `${tree}/.tdd/events.jsonl`)?.op, 'tmpfs', what);
        if (path === up)
          assert.is(
            decides(ops, `${up}/scripts/run.sh`)?.op,
            kind === 'read' ? 'ro-bind' : 'bind',
            `${what}: the declared path itself`,
          );
      }
    }
  }
});

test("plan: a ball worktree inside .leap is bound at its own path; the rest of .leap and the main tree's .tdd stay absent", () => {
  const wt = '/w/repo/.leap/s1/balls/b1/wt';
  const texts = {
    [`${wt}/.git`]: 'gitdir: /w/repo/.git/worktrees/b1\n',
    '/w/repo/.git/worktrees/b1/commondir': '../..\n',
  };
  const fs = view([...repoFs, `${wt}/src/x.ts`, '/w/repo/.leap/s1/balls/b2/wt/src/y.ts'], texts);
  assert.is(mainRepoRoot(wt, fs), '/w/repo');
  for (const role of ['writer', 'reader'] as const) {
    const ops = planMounts({ role, tree: wt, home: HOME }, fs, role === 'reader' ? { copy: '/tmp/c' } : {});
    const mask = ops.findIndex((o) => o.op === 'tmpfs' && o.dest === '/w/repo/.leap');
    assert.ok(mask > 0);
    const self = ops.findIndex((o) => o.op === 'bind' && o.dest === wt);
    const lastSelf = ops.map((o) => o.op === 'bind' && o.dest === wt).lastIndexOf(true);
    assert.ok(self >= 0 && lastSelf > mask, 'the worktree is bound again inside the masked .leap');
    assert.is(
      (ops[lastSelf] as { src: string }).src,
      role === 'writer' ? wt : '/tmp/c',
      'a reader sees its copy there, never the worktree itself',
    );
    assert.ok(ops.findIndex((o) => o.op === 'remount-ro' && o.dest === '/w/repo/.leap') > lastSelf);
    assert.ok(
      ops.some((o) => o.op === 'tmpfs' && o.dest === '/w/repo/.tdd'),
      "the main tree's state folder is absent too",
    );
    assert.ok(ops.some((o) => o.op === 'ro-bind' && o.dest === '/w/repo/.git'));
    assert.not.ok(
      ops.some((o) => 'dest' in o && o.dest.includes('/b2/')),
      "another ball's worktree is never bound",
    );
  }
});

test('plan: extra paths are bound as asked, a repository among them with its .git read-only and its state folders masked', () => {
  const ops = planMounts(
    { role: 'writer', tree: '/w/repo', home: HOME, read: ['/data/ref'], write: ['/w/sibling', `${HOME}/cache`] },
    view([...repoFs, '/data/ref/x', '/w/sibling/.tdd/', `${HOME}/cache/`, `${HOME}/.ssh/k`]),
  );
  assert.ok(binds(ops, 'ro-bind').includes('/data/ref'));
  assert.ok(binds(ops, 'bind').includes('/w/sibling'));
  assert.ok(binds(ops, 'bind').includes(`${HOME}/cache`));
  assert.ok(
    ops.findIndex((o) => o.op === 'ro-bind' && o.dest === '/w/sibling/.git') >
      ops.findIndex((o) => o.op === 'bind' && o.dest === '/w/sibling'),
  );
  assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === '/w/sibling/.tdd'));
});

test("plan: the supervisor's state folder elsewhere (hide) is masked; a tree in home is bound read-write inside the read-only home", () => {
  const ops = planMounts(
    { role: 'writer', tree: `${HOME}/src/repo`, home: HOME, hide: ['/state'] },
    view([...homeFs, `${HOME}/src/repo/.git/HEAD`, '/state/x.out']),
  );
  assert.ok(ops.some((o) => o.op === 'tmpfs' && o.dest === '/state'));
  const tree = ops.findIndex((o) => o.op === 'bind' && o.dest === `${HOME}/src/repo`);
  assert.ok(tree > ops.findIndex((o) => o.op === 'tmpfs' && o.dest === HOME));
});

test('plan: a file the command line names stays readable inside a masked state folder, alone', () => {
  const fs = view([...repoFs, '/w/repo/.tdd/verify-red.prompt']);
  for (const role of ['writer', 'reader'] as const) {
    const ops = planMounts(
      { role, tree: '/w/repo', keepReadable: ['/w/repo/.tdd/verify-red.prompt'] },
      fs,
      role === 'reader' ? { copy: '/tmp/c' } : {},
    );
    assert.ok(
      ops.some((o) => o.op === 'ro-bind' && o.dest === '/w/repo/.tdd/verify-red.prompt'),
      role,
    );
    assert.not.ok(
      ops.some((o) => 'dest' in o && o.dest === '/w/repo/.tdd/events.jsonl'),
      role,
    );
  }
});

test("plan: the agent's executable inside another agent's folder stays readable; a file the command names in a writer's tree stays writable", () => {
  const fs = view([...homeFs, `${HOME}/.codex/bin/codex`, `${HOME}/src/repo/.git/HEAD`, `${HOME}/src/repo/run.js`]);
  const ops = planMounts(
    {
      role: 'writer',
      tree: `${HOME}/src/repo`,
      home: HOME,
      keepReadable: [`${HOME}/.codex/bin/codex`, `${HOME}/src/repo/run.js`],
    },
    fs,
  );
  assert.ok(ops.some((o) => o.op === 'ro-bind' && o.dest === `${HOME}/.codex/bin/codex`));
  assert.not.ok(
    ops.some((o) => 'dest' in o && o.dest === `${HOME}/.codex/auth.json`),
    'only the executable, not the folder',
  );
  assert.not.ok(ops.some((o) => 'dest' in o && o.dest === `${HOME}/src/repo/run.js`));
});

test("plan: a file the command line names in the host's /tmp is bound alone into the private /tmp, after its tmpfs", () => {
  const fs = view([...repoFs, '/tmp/t1/script.json', '/tmp/t1/other.json', '/tmp/t1/dir/']);
  const ops = planMounts({ role: 'writer', tree: '/w/repo', keepReadable: ['/tmp/t1/script.json', '/tmp/t1/dir'] }, fs);
  const bound = ops.findIndex((o) => o.op === 'ro-bind' && o.dest === '/tmp/t1/script.json');
  assert.ok(bound > ops.findIndex((o) => o.op === 'tmpfs' && o.dest === '/tmp'), 'after /tmp is made private');
  assert.not.ok(
    ops.some(
      (o) => 'dest' in o && (o.dest === '/tmp/t1/other.json' || o.dest === '/tmp/t1/dir' || o.dest === '/tmp/t1'),
    ),
    'only the named file',
  );
});

test("plan: a file the command line names inside a declared path in /tmp keeps that path's mode (an agent's log it appends to)", () => {
  const fs = view([...repoFs, '/tmp/agents/dev.log']);
  const ops = planMounts(
    { role: 'writer', tree: '/w/repo', write: ['/tmp/agents'], keepReadable: ['/tmp/agents/dev.log'] },
    fs,
  );
  assert.equal(decides(ops, '/tmp/agents/dev.log'), { op: 'bind', src: '/tmp/agents', dest: '/tmp/agents' });
});

test('plan: a home in /tmp is bound read-only of its own, since /tmp is private', () => {
  const ops = planMounts({ role: 'writer', tree: '/w/repo', home: '/tmp/h' }, view([...repoFs, '/tmp/h/.profile']));
  assert.ok(
    ops.findIndex((o) => o.op === 'ro-bind' && o.dest === '/tmp/h') >
      ops.findIndex((o) => o.op === 'tmpfs' && o.dest === '/tmp'),
  );
});

test('plan: refused specs: a tree that holds home (or is /), relative paths', () => {
  assert.throws(() => planMounts({ role: 'writer', tree: '/home', home: HOME }, view(homeFs)), /holds the home folder/);
  assert.throws(() => planMounts({ role: 'writer', tree: HOME, home: HOME }, view(homeFs)), /holds the home folder/);
  assert.throws(() => planMounts({ role: 'writer', tree: '/' }, view([])), /holds the home folder/);
  assert.throws(() => planMounts({ role: 'writer', tree: 'repo' }, view([])), /absolute path/);
});

test('argv: namespaces, network off as its own namespace, every capability dropped, the command after --', () => {
  const fs = view(repoFs);
  const on = bwrapArgs({ role: 'writer', tree: '/w/repo', cwd: '/w/repo/src' }, fs);
  for (const flag of ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent'])
    assert.ok(on.includes(flag), flag);
  assert.not.ok(on.includes('--unshare-net'), 'network on by default');
  assert.is(
    on[on.indexOf('--cap-drop') + 1],
    'ALL',
    'as root bwrap would keep every capability (and a leaf could remount its tree)',
  );
  assert.is(on[on.indexOf('--chdir') + 1], '/w/repo/src');
  const off = bwrapArgs({ role: 'writer', tree: '/w/repo', network: false }, fs, { statusFd: 3 });
  assert.ok(off.includes('--unshare-net'));
  assert.is(off[off.indexOf('--json-status-fd') + 1], '3');
  const title = 'it\'s "quoted" $(x) `y` 🦀\nline';
  const argv = sandboxArgv('/usr/bin/bwrap', { role: 'writer', tree: '/w/repo' }, fs, 'printf', ['%s', title]);
  assert.is(argv[0], '/usr/bin/bwrap');
  assert.equal(argv.slice(argv.indexOf('--') + 1), ['printf', '%s', title], 'arguments pass as data, byte for byte');
});

test('env: the allow-list, named variables and prefixes, set values; secrets and TMPDIR stay out; inheritEnv keeps everything', () => {
  const env = {
    PATH: '/bin',
    HOME: '/h',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    TZ: 'UTC',
    VERI_TEST_CMD: 'npm test',
    LEAP_LEAF_x: '1',
    TERM: 'xterm',
    AWS_SECRET_ACCESS_KEY: 's3',
    GITHUB_TOKEN: 'ghp',
    GH_TOKEN: 'gho',
    REDIS_URL: 'redis://x',
    ANTHROPIC_API_KEY: 'sk',
    ANTHROPIC_BASE_URL: 'u',
    OPENAI_API_KEY: 'o',
    TMPDIR: '/var/x',
    SSH_AUTH_SOCK: '/tmp/agent',
  };
  const out = sandboxEnv(env, { passEnv: ['ANTHROPIC_*'], env: { CLAUDE_CODE_X: '1' } });
  assert.equal(Object.keys(out).sort(), [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'CLAUDE_CODE_X',
    'HOME',
    'LANG',
    'LC_ALL',
    'LEAP_LEAF_x',
    'PATH',
    'TERM',
    'TZ',
    'VERI_TEST_CMD',
  ]);
  const exact = sandboxEnv(env, { passEnv: ['OPENAI_API_KEY'] });
  assert.is(exact.OPENAI_API_KEY, 'o');
  assert.is(exact.ANTHROPIC_API_KEY, undefined);
  const all = sandboxEnv(env, { inheritEnv: true });
  assert.is(all.REDIS_URL, 'redis://x');
  assert.is(all.TMPDIR, undefined, "the host's TMPDIR may not exist writable inside: /tmp is the sandbox's own");
});

test("settings and causes: --sandbox / LEAP_SANDBOX values; the namespace cause names bwrap's own words", () => {
  assert.is(parseSandboxSetting('on', 'LEAP_SANDBOX'), 'writer');
  assert.is(parseSandboxSetting('writer', 'x'), 'writer');
  assert.is(parseSandboxSetting('reader', 'x'), 'reader');
  assert.is(parseSandboxSetting('off', 'x'), null);
  assert.throws(
    () => parseSandboxSetting('yes', 'LEAP_SANDBOX'),
    (e: Error) => e instanceof SandboxSettingError && /LEAP_SANDBOX must be/.test(e.message),
  );
  const cause = namespaceCause(
    'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.\n',
  );
  assert.match(cause, 'user namespaces are refused');
  assert.match(cause, 'apt-get install bubblewrap');
  assert.not.ok(cause.includes('\n'), 'one line');
  assert.match(namespaceCause(''), 'no message');
  assert.match(
    namespaceCause('bwrap: Creating new namespace failed: Operation not permitted\n'),
    'namespaces are refused here (no user namespaces, no capability',
  );
  assert.match(
    namespaceCause(
      'bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)',
    ),
    'user namespaces are refused here',
  );
  assert.match(namespaceCause('bwrap: something else'), 'bwrap cannot make its namespaces');
});

test.run();

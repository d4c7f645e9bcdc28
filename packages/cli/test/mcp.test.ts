import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hostileTitles, makeGitRepo, makeTempDir, repoRoot, runCommand, sourceCoverage, suite } from '@leap/test-utils';
import { MCP_TOOLS, binAnswer, optionArgs } from '../src/mcp-server.js';
import { detachedName, readDetached } from '../src/mcp-runs.js';
import { MCP_USAGE } from '../src/mcp-cli.js';
import { main } from '../src/main.js';

const BIN = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
// The server under test runs from the sources (so coverage sees it); the last test runs the bundled bin.
const SOURCE_BIN = ['--import', import.meta.resolve('tsx'), join(repoRoot, 'packages', 'cli', 'src', 'bin', 'leap.ts')];
const TEST_HEAD =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\n";
const TITLE = hostileTitles(2)[1] as string;

// The environment of a run: this process's without the caller's VERI_* and LEAP_*, leaves bounded.
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(VERI_|LEAP_|BASH_(DEFAULT|MAX)_TIMEOUT_MS)/.test(k)) env[k] = v;
  return { ...env, VERI_TIMEOUT: '60' };
}

// A one-step project (the conductor's own test project) with scripted agents outside it, and a slice file.
function makeProject(): { repo: string; agents: string; plan: string } {
  const repo = makeGitRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'slug', private: true, type: 'module', scripts: { test: 'node --test test/' } })}\n`,
      'src/slug.js': 'export function slugify(title) {\n  return title;\n}\n',
      'test/smoke.test.js': `${TEST_HEAD}test('slugify is a function', () => assert.equal(typeof slugify, 'function'));\n`,
      '.tdd/issues/1.md':
        '# Slugify titles\n\n## Acceptance criteria\n\n- [ ] slugify lowercases the words and joins them with dashes\n',
    },
  });
  const dir = makeTempDir('leap-mcp-agents-');
  const moves = [
    {
      edits: [
        {
          path: 'test/step1.test.js',
          content: `${TEST_HEAD}test('dashes', () => assert.equal(slugify('Hello  Big World'), 'hello-big-world'));\n`,
        },
      ],
      answer: 'Wrote the failing test.',
    },
    {
      edits: [
        {
          path: 'src/slug.js',
          content:
            "export function slugify(title) {\n  return title.toLowerCase().split(/\\s+/).filter(Boolean).join('-');\n}\n",
        },
      ],
      answer: 'Implemented it.',
    },
    {
      edits: [
        {
          path: 'src/slug.js',
          content:
            "const words = (t) => t.split(/\\s+/).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n",
        },
      ],
      answer: 'Refactored.',
    },
  ];
  const verdicts = ['red', 'green', 'refactor'].map((phase) => ({
    answer: { verdict: 'PASS', reason: `${phase} holds: ${TITLE}` },
  }));
  writeFileSync(join(dir, 'dev.json'), JSON.stringify({ family: 'replayed', moves }));
  writeFileSync(join(dir, 'ver.json'), JSON.stringify({ family: 'checker', moves: verdicts }));
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      agents: { dev: { plugin: 'scripted', script: 'dev.json' }, ver: { plugin: 'scripted', script: 'ver.json' } },
    }),
  );
  const plan = join(dir, 'plan.txt');
  writeFileSync(plan, `Slugify\n${TITLE} (criterion 1)\n`);
  return { repo, agents: join(dir, 'agents.json'), plan };
}

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const text = (result: ToolResult): string => result.content.map((c) => c.text).join('\n');

const mcp = suite("leap mcp, through the SDK's own client over stdio");
const ctx = { client: null as unknown as Client, repo: '', agents: '', plan: '' };

mcp.before(async () => {
  Object.assign(ctx, makeProject());
  ctx.client = new Client({ name: 'leap-test', version: '0.0.0' });
  await ctx.client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...SOURCE_BIN, 'mcp'],
      cwd: ctx.repo,
      env: { ...cleanEnv(), ...sourceCoverage() },
      stderr: 'inherit',
    }),
  );
});
mcp.after(async () => {
  await ctx.client.close();
});

const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await ctx.client.callTool({ name, arguments: args })) as ToolResult;

// Poll a tool until `done` says so, at most `ms`; fails with the last answer when the bound is hit.
async function pollUntil(
  name: string,
  args: Record<string, unknown>,
  done: (value: { detached: { running: boolean } | null }) => boolean,
  ms = 150_000,
): Promise<Record<string, unknown>> {
  const end = Date.now() + ms;
  for (;;) {
    const answer = await call(name, args);
    const value = JSON.parse(text(answer)) as { detached: { running: boolean } | null };
    if (done(value)) return value as unknown as Record<string, unknown>;
    if (Date.now() > end) assert.unreachable(`${name} still not done after ${ms / 1000} s: ${text(answer)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// A detached start's state once it ended: as the start answered it, or polled through the status tool.
async function settled(
  start: ToolResult,
  status: string,
  args: Record<string, unknown>,
): Promise<{ code?: number; stderr: string }> {
  const first = JSON.parse(text(start)) as { running: boolean; code?: number; stderr: string };
  if (!first.running) return first;
  const polled = await pollUntil(status, args, (v) => v.detached !== null && !v.detached.running);
  return polled.detached as { stderr: string };
}

mcp("it lists the contract's tools, each with a typed input schema", async () => {
  const { tools } = await ctx.client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), [...MCP_TOOLS].sort());
  const schema = (name: string) =>
    tools.find((t) => t.name === name)?.inputSchema as {
      properties: Record<string, { type?: string }>;
      required?: string[];
    };
  assert.equal(schema('tdd_run').required, ['issue']);
  for (const option of [
    'test-cmd',
    'plan',
    'developer',
    'verifier',
    'planner',
    'agents',
    'revisions',
    'max-cost',
    'tracker',
    'timeout',
    'idle-timeout',
    'tests',
    'allow-same-family',
    'notify',
    'sandbox',
  ])
    assert.ok(option in schema('tdd_run').properties, option);
  for (const option of ['notify', 'sandbox']) assert.ok(option in schema('slice_run').properties, option);
  assert.is(schema('tdd_run').properties.issue?.type, 'integer');
  for (const name of ['slice_validate', 'slice_plan', 'slice_run', 'slice_status'])
    assert.equal(schema(name).required, ['file']);
  assert.equal(schema('tdd_stop').required, ['mode']);
  assert.ok('out' in schema('report').properties);
  assert.equal(schema('verdicts').required, ['issue']);
  assert.ok('redis' in schema('workers').properties && schema('workers').required === undefined);
});

mcp(
  'each tool says what it does to the world (annotations); the tools that return data declare an output schema and answer with it',
  async () => {
    const { tools } = await ctx.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['tdd_status', 'slice_validate', 'slice_plan', 'slice_status', 'verdicts']) {
      assert.equal(
        byName.get(name)?.annotations,
        {
          title: byName.get(name)?.title,
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        name,
      );
    }
    for (const name of ['tdd_run', 'slice_run'])
      assert.ok(
        byName.get(name)?.annotations?.readOnlyHint === false && byName.get(name)?.annotations?.openWorldHint === true,
        name,
      );
    assert.is(byName.get('tdd_stop')?.annotations?.destructiveHint, true);
    assert.is(byName.get('report')?.annotations?.readOnlyHint, false);
    assert.equal(
      [byName.get('workers')?.annotations?.readOnlyHint, byName.get('workers')?.annotations?.openWorldHint],
      [true, true],
      'workers reads Redis',
    );
    for (const t of tools) assert.ok((t.title ?? '') !== '', `${t.name} has a title`);
    const outputs = tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name);
    assert.equal(outputs.sort(), [
      'report',
      'slice_plan',
      'slice_run',
      'slice_status',
      'slice_validate',
      'tdd_run',
      'tdd_status',
      'verdicts',
      'workers',
    ]);
    const statusSchema = byName.get('tdd_status')?.outputSchema?.properties?.status as
      | { properties?: object }
      | undefined;
    assert.ok('stopped' in (statusSchema?.properties ?? {}));
    const answer = (await ctx.client.callTool({ name: 'verdicts', arguments: { issue: 99 } })) as ToolResult & {
      structuredContent?: unknown;
    };
    assert.equal(answer.structuredContent, { verdicts: [] });
    assert.equal(JSON.parse(text(answer)), { verdicts: [] }, 'the same data as text, for clients that read only text');
  },
);

mcp("workers without the queue's secret: the CLI's own error, the Redis URL passed as data", async () => {
  const answer = await call('workers', { redis: 'redis://127.0.0.1:1' });
  assert.is(answer.isError, true);
  assert.match(text(answer), /^leap workers --json --redis=redis:\/\/127\.0\.0\.1:1: exit 2\n/);
  assert.match(text(answer), /set LEAP_QUEUE_SECRET or give --secret-file FILE/);
});

mcp(
  "input that breaks a schema is refused before anything runs; the CLI's own errors come back as the tool's",
  async () => {
    const bad = await call('tdd_run', { issue: -1 });
    assert.ok(bad.isError === true);
    assert.match(text(bad), /issue/);
    const unknown = await call('tdd_run', {
      issue: 1,
      developer: 'nobody',
      agents: ctx.agents,
      plan: ctx.plan,
      'test-cmd': 'node --test test/',
    });
    const state = (await settled(unknown, 'tdd_status', { issue: 1 })) as { code?: number; stderr: string };
    // Said at once (within the settling time, isError and the exit code), or, on a loaded machine, by the poll.
    if (state.code !== undefined) assert.ok(unknown.isError === true && state.code === 2, text(unknown));
    assert.match(state.stderr, /^leap: unknown agent "nobody"/);
    assert.ok(!existsSync(join(ctx.repo, '.tdd', 'issue-1.md')), 'the refused run touched the ledger');
  },
);

mcp(
  'tdd_run starts a real run detached; tdd_status polls it to its end; verdicts and report read what it left',
  async () => {
    const started = await call('tdd_run', {
      issue: 1,
      'test-cmd': 'node --test test/',
      plan: ctx.plan,
      developer: 'dev',
      verifier: 'ver',
      agents: ctx.agents,
      timeout: '60s',
    });
    assert.is(started.isError, false, text(started));
    const first = JSON.parse(text(started)) as { pid: number; poll: string; argv: string[] };
    assert.is(first.poll, 'tdd_status');
    assert.ok(first.argv.includes(`--agents=${ctx.agents}`));
    const ended = (await pollUntil('tdd_status', { issue: 1 }, (v) => v.detached !== null && !v.detached.running)) as {
      status: { done: number; steps: { title: string; state: string }[] };
      detached: { result: { outcome: string; code: number } };
    };
    assert.is(ended.detached.result.outcome, 'done', JSON.stringify(ended));
    assert.is(ended.detached.result.code, 0);
    assert.equal(ended.status.steps, [{ title: TITLE, state: 'done' }]);
    const { verdicts } = JSON.parse(text(await call('verdicts', { issue: 1 }))) as {
      verdicts: { phase: string; verdict: string; reason: string; step: string }[];
    };
    assert.equal(
      verdicts.map((v) => [v.phase, v.verdict, v.reason]),
      ['red', 'green', 'refactor'].map((p) => [p, 'PASS', `${p} holds: ${TITLE}`]),
    );
    assert.ok(verdicts.every((v) => v.step === TITLE));
    assert.equal(JSON.parse(text(await call('verdicts', { issue: 1, last: 1 }))).verdicts.length, 1);
    const report = await call('report', { out: "report's dir/r $x.html" });
    assert.is(report.isError, false, text(report));
    const written = join(ctx.repo, "report's dir", 'r $x.html');
    assert.ok(text(report).includes(JSON.stringify(written).slice(1, -1)), text(report));
    assert.match(readFileSync(written, 'utf8'), /^<!doctype html>/i);
  },
);

mcp('tdd_stop writes and clears a stop request as leap tdd stop does; tdd_status shows it', async () => {
  assert.is((await call('tdd_stop', { mode: 'at-leaf' })).isError, false);
  assert.is(readFileSync(join(ctx.repo, '.tdd', 'stop'), 'utf8').trim(), 'at-leaf');
  const status = JSON.parse(text(await call('tdd_status', { issue: 1 }))) as { status: { stop: string } };
  assert.is(status.status.stop, 'at-leaf');
  assert.is((await call('tdd_stop', { mode: 'clear' })).isError, false);
  assert.ok(!existsSync(join(ctx.repo, '.tdd', 'stop')));
  const refused = await call('tdd_stop', { mode: 'whenever' });
  assert.ok(refused.isError === true);
  assert.match(text(refused), /at-ledger.*at-leaf.*now.*clear/);
});

mcp(
  'a run stopped through tdd_stop shows as stopped, with its mode, in tdd_status (not its last phase and no stop)',
  async () => {
    // The report an earlier test wrote into the work tree would make the run bail dirty-tree.
    rmSync(join(ctx.repo, "report's dir"), { recursive: true, force: true });
    writeFileSync(
      join(ctx.repo, '.tdd', 'issues', '2.md'),
      '# Shout\n\n## Acceptance criteria\n\n- [ ] shout upper-cases\n',
    );
    assert.is((await call('tdd_stop', { mode: 'at-leaf' })).isError, false);
    const args = {
      issue: 2,
      'test-cmd': 'node --test test/',
      plan: ctx.plan,
      developer: 'dev',
      verifier: 'ver',
      agents: ctx.agents,
    };
    const started = await call('tdd_run', args);
    const state = (await settled(started, 'tdd_status', { issue: 2 })) as { result?: { outcome: string } };
    assert.is(state.result?.outcome, 'stopped', JSON.stringify(state));
    const polled = (await call('tdd_status', { issue: 2 })) as ToolResult & {
      structuredContent: { status: { stop: string | null; stopped: { mode: string } | null } };
    };
    assert.is(polled.structuredContent.status.stop, null, 'the request was consumed');
    assert.is(polled.structuredContent.status.stopped?.mode, 'at-leaf');
  },
);

mcp(
  "the slice tools: validate, plan and status answer as the CLI; slice_run's bad input is the CLI's error; a hostile path is data",
  async () => {
    const file = "slices/$(touch PWNED) 'q'.json";
    const slice = {
      id: 'one',
      base: 'HEAD',
      spine: 'integrator',
      balls: [
        {
          id: 'a',
          goal: 'a new file',
          spec: 'write src/a.js',
          scope: [{ path: 'src/a.js', sha256: null }],
          proof: { argv: ['node', '-e', '0'] },
          rollback: 'remove src/a.js',
          deps: [],
        },
      ],
    };
    mkdirSync(dirname(join(ctx.repo, file)), { recursive: true });
    writeFileSync(join(ctx.repo, file), JSON.stringify(slice));
    const valid = await call('slice_validate', { file });
    assert.is(valid.isError, false, text(valid));
    assert.match(text(valid), /"valid": ?true/);
    const plan = (await call('slice_plan', { file })) as ToolResult & { structuredContent?: { waves: string[][] } };
    assert.equal(plan.structuredContent?.waves, [['a']]);
    assert.equal(JSON.parse(text(plan)), plan.structuredContent);
    const status = await call('slice_status', { file });
    assert.is(status.isError, false, text(status));
    assert.match(text(status), /"slice": ?"one"/);
    assert.is((JSON.parse(text(status)) as { detached: unknown }).detached, null);
    writeFileSync(
      join(ctx.repo, 'slices', 'bad.json'),
      JSON.stringify({ ...slice, balls: [{ ...slice.balls[0], deps: ['ghost'] }] }),
    );
    const invalid = await call('slice_validate', { file: 'slices/bad.json' });
    assert.ok(invalid.isError === true);
    assert.match(text(invalid), /"valid": false[\s\S]*ghost/);
    const refused = await call('slice_run', { file, builder: 'nobody' });
    assert.match((await settled(refused, 'slice_status', { file })).stderr, /unknown agent "nobody"/);
    assert.ok(!existsSync(join(ctx.repo, 'PWNED')) && !existsSync(join(ctx.repo, 'slices', 'PWNED')));
  },
);

mcp(
  "slice_run builds a real slice detached (the slice engine's own test builder and reviewers); slice_status polls it to its end",
  async () => {
    const fixtures = join(repoRoot, 'packages', 'slice', 'test', 'fixtures');
    const dir = makeTempDir('leap-mcp-slice-');
    writeFileSync(
      join(dir, 'plan.json'),
      JSON.stringify({ made: { '*': { edits: [{ path: 'src/made.js', content: 'made\n' }] } } }),
    );
    const reviewer = (name: string, family: string) => ({
      plugin: 'command',
      family,
      command: [process.execPath, join(fixtures, 'reviewer.mjs')],
      env: { REVIEW_MODE: 'pass', REVIEWER_NAME: name },
    });
    // The builder runs in a sandbox (a writer of its ball's worktree): its plan lies in `dir`, its entry's to read.
    const agents = {
      b: {
        plugin: 'command',
        family: 'fb',
        command: [process.execPath, join(fixtures, 'builder.mjs')],
        env: { BUILDER_PLAN: join(dir, 'plan.json') },
        paths: { read: [dir] },
      },
      r1: reviewer('r1', 'f1'),
      r2: reviewer('r2', 'f2'),
    };
    writeFileSync(join(dir, 'agents.json'), JSON.stringify({ agents }));
    const proof = [
      process.execPath,
      '-e',
      "process.exit(require('fs').readFileSync('src/made.js','utf8')==='made\\n'?0:1)",
    ];
    const file = join(dir, 'made.json');
    writeFileSync(
      file,
      JSON.stringify({
        id: 'made',
        base: 'HEAD',
        spine: 'integrator',
        balls: [
          {
            id: 'made',
            goal: 'make it',
            spec: 'write src/made.js',
            scope: [{ path: 'src/made.js', sha256: null }],
            proof: { argv: proof },
            rollback: 'remove it',
            deps: [],
          },
        ],
      }),
    );
    const started = await call('slice_run', {
      file,
      agents: join(dir, 'agents.json'),
      builder: 'b',
      reviewers: ['r1', 'r2'],
      jobs: 1,
    });
    assert.is(started.isError, false, text(started));
    const ended = (await pollUntil('slice_status', { file }, (v) => v.detached !== null && !v.detached.running)) as {
      status: { balls: { id?: string; state?: string }[] };
      detached: { result: { outcome?: string } | null; stderr: string };
    };
    assert.match(JSON.stringify(ended.detached.result), /"made"/, ended.detached.stderr);
    assert.ok(existsSync(join(ctx.repo, '.leap', 'made', 'record.json')), `no record: ${ended.detached.stderr}`);
  },
);

mcp('the bundled bin serves the same tools, and --help says what it is', async () => {
  const client = new Client({ name: 'leap-test-bin', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: ctx.repo,
      env: cleanEnv(),
      stderr: 'inherit',
    }),
  );
  try {
    assert.equal((await client.listTools()).tools.map((t) => t.name).sort(), [...MCP_TOOLS].sort());
    const plan = (await client.callTool({ name: 'slice_plan', arguments: { file: 'slices/bad.json' } })) as ToolResult;
    assert.ok(plan.isError === true);
    assert.match(text(plan), /exit 2[\s\S]*ghost/);
  } finally {
    await client.close();
  }
  const help = await runCommand(process.execPath, [BIN, 'mcp', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: leap mcp\n[\s\S]*tdd_run[\s\S]*verdicts/);
  const extra = await runCommand(process.execPath, [BIN, 'mcp', 'extra']);
  assert.is(extra.code, 2);
  assert.match(extra.stderr, /^leap: unexpected argument "extra"/);
});

mcp.run();

// ---

const parts = suite('leap mcp, its parts');

parts("optionArgs: each value one argv element, paths made absolute from the server's folder, lists joined", () => {
  assert.equal(
    optionArgs(
      {
        issue: 3,
        'test-cmd': "echo '$x'",
        plan: 'p.txt',
        tests: ['a', 'b c'],
        reviewers: ['x', 'y'],
        'allow-same-family': true,
        notify: 'curl -d @- $(x)',
        json: false,
        skip: undefined,
      },
      '/srv',
      ['issue'],
    ),
    [
      "--test-cmd=echo '$x'",
      '--plan=/srv/p.txt',
      '--tests=a',
      '--tests=b c',
      '--reviewers=x,y',
      '--allow-same-family',
      '--notify=curl -d @- $(x)',
    ],
  );
});

parts("binAnswer: a killed run says so; detachedName keeps a slice's name a file name", () => {
  const answer = binAnswer(['report'], {
    code: null,
    stdout: '',
    stderr: 'leap report did not end within 1 s and was killed\n',
  });
  assert.ok(answer.isError === true);
  assert.match((answer.content[0] as { text: string }).text, /^leap report: exit killed\nleap report did not end/);
  assert.match(detachedName('slice', '/r/slices/a b$/../x y.json'), /^mcp-slice-x_y\.json-[0-9a-f]{8}$/);
  assert.is(detachedName('tdd', '7'), 'mcp-tdd-7');
});

parts('a forged run record cannot make tdd_status read a file outside its own names', () => {
  const repo = makeGitRepo();
  const secret = join(makeTempDir(), 'secret.txt');
  writeFileSync(secret, 'do not show\n');
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(
    join(repo, '.tdd', 'mcp-tdd-3.json'),
    JSON.stringify({ pid: 1, starttime: 'x', bootId: '', argv: [], started: '', out: secret, err: secret }),
  );
  const state = readDetached('mcp-tdd-3', repo, {});
  assert.is(state?.running, false);
  assert.is(state?.stderr, '');
  assert.is(state?.result, null);
  assert.is(state?.err, join(repo, '.tdd', 'mcp-tdd-3.err'));
});

parts('leap mcp --help and a stray argument, through the command table', async () => {
  const out: string[] = [];
  const io = {
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => out.push(t),
    cwd: process.cwd(),
    env: process.env,
    isTTY: false,
  };
  assert.is(await main(['mcp', '--help'], io), 0);
  assert.is(out.join(''), `${MCP_USAGE}\n`);
  for (const tool of MCP_TOOLS) assert.match(MCP_USAGE, new RegExp(`\\b${tool}\\b`), `--help names ${tool}`);
  try {
    await main(['mcp', 'extra'], io);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { exitCode: number }).exitCode, 2);
    assert.match((error as Error).message, /^unexpected argument "extra"/);
  }
});

parts.run();

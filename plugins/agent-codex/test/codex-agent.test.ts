import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, hostileTitles, makeTempDir, waitFor } from '@leap/test-utils';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CODEX_READINESS_SCRIPT,
  codexRetrying,
  codexSandboxHelpersRefusal,
  codexSetupReadiness,
  createCodexAgent,
  explainCodexFailure,
  parseCodexEvents,
  parseCodexUsage,
} from '../src/index.js';
import { OTHER_USER, makeWorktree, runInvocation } from './helpers.js';

const ROLES: AgentRole[] = ['developer', 'verifier', 'reviewer', 'builder', 'planner'];

const create = suite('createCodexAgent');
create.after.each(cleanupTempDirs);

create('names the openai family; verifiers, reviewers and planners run in the read-only sandbox, anywhere', () => {
  const agent = createCodexAgent();
  assert.is(agent.name, 'codex');
  assert.is(agent.family, 'openai');
  for (const role of ['verifier', 'reviewer', 'planner'] as const) {
    const call = agent.buildInvocation('p', { role, cwd: '/tmp' });
    assert.equal(call.args, ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '-']);
    assert.is(call.stdin, 'p');
    assert.is(call.command, 'codex');
    assert.is(call.model, undefined);
  }
  assert.equal(agent.preflight?.({ role: 'developer', cwd: '/tmp' }), {
    command: process.execPath,
    args: ['-e', 'eval(process.env.LEAP_CODEX_READINESS)', 'codex'],
    env: { LEAP_CODEX_READINESS: CODEX_READINESS_SCRIPT, LEAP_CODEX_SANDBOX: 'workspace-write' },
  });
  assert.is(
    agent.preflight?.({ role: 'reviewer', cwd: '/tmp' })?.env?.LEAP_CODEX_SANDBOX,
    'read-only',
    'the check knows the mode its leaf runs in',
  );
  assert.is(
    agent.preflight?.({ role: 'developer', cwd: '/tmp', sandboxed: true })?.env?.LEAP_CODEX_SANDBOX,
    'danger-full-access',
  );
  assert.is(
    createCodexAgent({ preflight: false }).preflight?.({ role: 'developer', cwd: '/tmp' }),
    null,
    'an entry can turn the check off',
  );
});

create(
  "inside the toolchain's sandbox its own is off (it cannot nest); its sandbox needs: CODEX_HOME, CODEX_*, OPENAI_* and the env_keys its config names",
  () => {
    const agent = createCodexAgent();
    for (const role of ROLES)
      assert.equal(
        agent.buildInvocation('p', { role, cwd: '/tmp', sandboxed: true }).args.slice(3, 5),
        ['--sandbox', 'danger-full-access'],
        role,
      );
    const dir = makeTempDir();
    writeFileSync(
      join(dir, 'config.toml'),
      '[model_providers.stub]\nbase_url = "http://127.0.0.1:1/v1"\nenv_key = "STUB_OPENAI_KEY"\n',
    );
    assert.equal(agent.sandbox?.({ CODEX_HOME: dir }), {
      write: [dir],
      passEnv: ['CODEX_*', 'OPENAI_*', 'STUB_OPENAI_KEY'],
    });
    assert.equal(agent.sandbox?.({ HOME: '/nonexistent-home' }), {
      agentPaths: ['.codex'],
      passEnv: ['CODEX_*', 'OPENAI_*'],
    });
  },
);

create('writers get workspace-write; model and extra args come before "-"', () => {
  const agent = createCodexAgent({
    name: 'codex-mini',
    bin: '/opt/codex',
    model: 'o4-mini',
    extraArgs: ['--ephemeral'],
  });
  assert.is(agent.name, 'codex-mini');
  const call = agent.buildInvocation('p', { role: 'developer', cwd: '/tmp' });
  assert.is(call.command, '/opt/codex');
  assert.equal(call.args, [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    'workspace-write',
    '--model',
    'o4-mini',
    '--ephemeral',
    '-',
  ]);
  assert.is(call.model, 'o4-mini');
  assert.equal(agent.buildInvocation('p', { role: 'builder', cwd: '/tmp', model: 'gpt-5' }).args.slice(5, 7), [
    '--model',
    'gpt-5',
  ]);
  assert.equal(
    agent.preflight?.({ role: 'builder', cwd: '/tmp' })?.args.slice(2),
    ['/opt/codex', '--ephemeral'],
    'the check knows the bin and the extra args (a -c model_provider=...)',
  );
});

create(
  'every role answers in a fresh worktree and in a folder that is no repository, as this user and another',
  async () => {
    const agent = createCodexAgent();
    const titles = hostileTitles(ROLES.length, 11);
    for (const cwd of [makeWorktree(), makeTempDir()]) {
      for (const uid of [undefined, OTHER_USER ?? undefined]) {
        for (const [i, role] of ROLES.entries()) {
          const title = titles[i] as string;
          const ran = await runInvocation(agent.buildInvocation(title, { role, cwd }), {}, cwd, uid);
          assert.is(ran.code, 0, `${role} in ${cwd} as ${uid ?? 'this user'}: ${ran.stderr}`);
          const answer = agent.parseAnswer(ran.stdout);
          const sandbox = role === 'developer' || role === 'builder' ? 'workspace-write' : 'read-only';
          assert.is(answer.text, `echo:${title}|sandbox=${sandbox}`);
          assert.equal(answer.usage, {
            model: null,
            input_tokens: Buffer.byteLength(title) + 1000,
            output_tokens: Buffer.byteLength(answer.text),
            cost_usd: null,
          });
        }
      }
    }
  },
);

create('the preflight says whether codex is logged in, at once, in its words', async () => {
  const agent = createCodexAgent();
  const check = agent.preflight?.({ role: 'reviewer', cwd: '/tmp' });
  assert.ok(check);
  const yes = await runInvocation(check);
  assert.is(yes.code, 0, yes.stderr);
  const no = await runInvocation(check, { CODEX_HOME: makeTempDir() });
  assert.is(no.code, 1);
  assert.is(explainCodexFailure(no.stdout, no.stderr), 'Not logged in');
  // API-key setups that `codex exec` runs with, which `codex login status` calls "Not logged in" (each CODEX_HOME
  // under a temp folder that is not TMPDIR: under it, codex's own sandbox could not run, below).
  const byKey = await runInvocation(check, { CODEX_HOME: makeTempDir(), CODEX_API_KEY: 'sk-x', TMPDIR: makeTempDir() });
  assert.equal([byKey.code, byKey.stdout], [0, 'ready: CODEX_API_KEY is set\n']);
  const home = makeTempDir();
  writeFileSync(
    join(home, 'config.toml'),
    'model_provider = "corp" # ours\n[model_providers.corp]\nbase_url = "http://127.0.0.1:9/v1"\nenv_key = "CORP_KEY"\n',
  );
  const byEnvKey = await runInvocation(check, { CODEX_HOME: home, CORP_KEY: 'k', TMPDIR: makeTempDir() });
  assert.equal(
    [byEnvKey.code, byEnvKey.stdout],
    [0, 'ready: model provider "corp" reads its key from CORP_KEY, which is set\n'],
  );
  const unset = await runInvocation(check, { CODEX_HOME: home, CORP_KEY: undefined });
  assert.equal(
    [unset.code, explainCodexFailure(unset.stdout, unset.stderr)],
    [1, 'model provider "corp" (config.toml) reads its key from CORP_KEY, which is not set'],
  );
  const missing = await runInvocation(
    { ...check, args: [...check.args.slice(0, 2), '/nonexistent/codex'] },
    { CODEX_HOME: makeTempDir() },
  );
  assert.equal([missing.code, missing.stderr], [127, '/nonexistent/codex was not found\n']);
  const plainFile = join(makeTempDir(), 'codex');
  writeFileSync(plainFile, '#!/bin/sh\n');
  const notExecutable = await runInvocation(
    { ...check, args: [...check.args.slice(0, 2), plainFile] },
    { CODEX_HOME: makeTempDir() },
  );
  assert.equal([notExecutable.code, notExecutable.stderr], [126, `${plainFile} is not executable\n`]);
});

create(
  "readiness refuses a CODEX_HOME under the temporary folder when codex's own sandbox would run: its commands would all fail, unsaid",
  async () => {
    const home = makeTempDir();
    const temp = dirname(home);
    const check = (role: AgentRole, sandboxed = false) =>
      createCodexAgent().preflight?.({ role, cwd: '/tmp', sandboxed }) as NonNullable<
        ReturnType<NonNullable<ReturnType<typeof createCodexAgent>['preflight']>>
      >;
    for (const [role, mode] of [
      ['developer', 'workspace-write'],
      ['verifier', 'read-only'],
    ] as const) {
      const refused = await runInvocation(check(role), { CODEX_HOME: home, CODEX_API_KEY: 'sk-x', TMPDIR: temp });
      assert.equal(
        [refused.code, refused.stdout, explainCodexFailure(refused.stdout, refused.stderr)],
        [
          1,
          '',
          `codex cannot run its own ${mode} sandbox: its CODEX_HOME ${JSON.stringify(home)} lies under the temporary folder ${JSON.stringify(temp)} (TMPDIR), where Codex CLI refuses to create the helper its sandbox runs every command through, so each command would fail and the run would still end as if it had worked; give CODEX_HOME a folder outside ${JSON.stringify(temp)}, or point TMPDIR elsewhere`,
        ],
        role,
      );
    }
    const inside = await runInvocation(check('developer', true), {
      CODEX_HOME: home,
      CODEX_API_KEY: 'sk-x',
      TMPDIR: temp,
    });
    assert.equal(
      [inside.code, inside.stdout],
      [0, 'ready: CODEX_API_KEY is set\n'],
      "inside the toolchain's sandbox codex runs none of its own",
    );
    const notLoggedIn = await runInvocation(check('developer'), { CODEX_HOME: home, TMPDIR: temp });
    assert.equal(
      [notLoggedIn.code, explainCodexFailure(notLoggedIn.stdout, notLoggedIn.stderr)],
      [1, 'Not logged in'],
      'the login is said first',
    );
    // A login that `codex login status` confirms, then the sandbox: the status's words, and the refusal last.
    writeFileSync(join(home, 'auth.json'), '{}');
    const loggedIn = await runInvocation(check('reviewer'), { CODEX_HOME: home, TMPDIR: temp });
    assert.is(loggedIn.code, 1);
    assert.match(
      explainCodexFailure(loggedIn.stdout, loggedIn.stderr) ?? '',
      /^codex cannot run its own read-only sandbox: /,
    );
    assert.equal(
      (await runInvocation(check('reviewer'), { CODEX_HOME: home, TMPDIR: makeTempDir() })).code,
      0,
      'TMPDIR elsewhere: ready',
    );
  },
);

create(
  "the sandbox rule is the CLI's: CODEX_HOME, canonical, starts with TMPDIR as given (else /tmp), by whole path components",
  () => {
    const same = (p: string) => p;
    const refused = (
      env: Record<string, string | undefined>,
      home: string,
      mode = 'workspace-write',
      realpath = same,
    ) => codexSandboxHelpersRefusal(env, home, mode, realpath) !== null;
    assert.ok(refused({}, '/tmp/x/.codex'), 'TMPDIR unset: /tmp');
    assert.ok(refused({}, '/tmp'));
    assert.not.ok(refused({}, '/tmpfoo/.codex'), 'a whole component, not a prefix of a name');
    assert.not.ok(refused({}, '/root/.codex'));
    assert.ok(refused({ TMPDIR: '/srv/tmp/' }, '/srv/tmp/h'), 'a trailing slash changes nothing');
    assert.ok(refused({ TMPDIR: '/srv//./tmp' }, '/srv/tmp/h'));
    assert.not.ok(refused({ TMPDIR: '/srv/tmp' }, '/tmp/h'), 'TMPDIR set: /tmp is nothing special');
    assert.ok(
      refused({ TMPDIR: '' }, '/root/.codex'),
      'an empty TMPDIR holds every path (Rust: Path::new("") starts every path)',
    );
    assert.not.ok(refused({ TMPDIR: 'tmp' }, '/root/tmp/.codex'), 'a relative TMPDIR starts no absolute path');
    assert.ok(
      refused({ TMPDIR: '/var/tmp' }, '/home/me/link', 'read-only', () => '/var/tmp/real'),
      'CODEX_HOME is compared canonical',
    );
    assert.not.ok(refused({}, '/tmp/x', 'danger-full-access'), 'no sandbox of its own, no helper needed');
    assert.ok(
      refused({}, '/tmp/x', 'read-only', () => {
        throw new Error('ENOENT');
      }),
      'not there: compared as given',
    );
  },
);

create(
  "readiness judges the setup as the CLI does: CODEX_API_KEY, the provider's env_key, a keyless provider, else codex login",
  () => {
    const config = (provider: string) =>
      `model_provider = '${provider}'\n\n[model_providers."corp"]\nenv_key = "CORP_KEY"\n[model_providers.local]\nbase_url = "http://localhost:11434/v1"\n[model_providers.hosted]\nrequires_openai_auth = true\n`;
    assert.equal(codexSetupReadiness({}, null, []), {
      ready: null,
      why: 'model provider "openai" signs in with codex login',
    });
    assert.equal(codexSetupReadiness({ CODEX_API_KEY: '' }, null, []).ready, null, 'an empty variable is no key');
    assert.equal(codexSetupReadiness({ CORP_KEY: 'k' }, config('corp'), []).ready, true);
    assert.equal(codexSetupReadiness({}, config('corp'), []).ready, false);
    assert.equal(codexSetupReadiness({}, config('local'), []), {
      ready: true,
      why: 'model provider "local" needs no key',
    });
    assert.equal(codexSetupReadiness({}, config('hosted'), []).ready, null);
    assert.equal(codexSetupReadiness({}, null, ['--oss']).ready, null);
    assert.equal(codexSetupReadiness({}, null, ['-c', 'model_provider=ollama']), {
      ready: true,
      why: 'model provider "ollama" is local and needs no key',
    });
    assert.equal(
      codexSetupReadiness({ CORP_KEY: 'k' }, config('local'), ['--config=model_provider="corp"']).ready,
      true,
      'the command line wins over config.toml',
    );
    assert.equal(
      codexSetupReadiness({}, 'model_provider = "x\\"y"\n', []).why,
      'model provider "x"y" signs in with codex login',
    );
  },
);

create(
  'the stand-in refuses unexpected argv as clap does, and a folder outside git without the check skipped',
  async () => {
    const ran = await runInvocation({ command: 'codex', args: ['exec', '--json', '--no-such-flag', '-'], stdin: 'x' });
    assert.is(ran.code, 2);
    assert.match(ran.stderr, /^error: unexpected argument '--no-such-flag' found/);
    const bad = await runInvocation({ command: 'codex', args: ['exec', '--sandbox', 'none', '-'], stdin: 'x' });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /possible values: read-only, workspace-write, danger-full-access/);
    const dir = makeTempDir();
    const outside = await runInvocation(
      { command: 'codex', args: ['exec', '--json', '--sandbox', 'read-only', '-'], stdin: 'x' },
      {},
      dir,
    );
    assert.is(outside.code, 1);
    assert.is(
      explainCodexFailure(outside.stdout, outside.stderr),
      'Not inside a trusted directory and --skip-git-repo-check was not specified.',
    );
  },
);

create('a failed turn throws with its message; a network blip it recovered from does not', async () => {
  const agent = createCodexAgent();
  const call = agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' });
  const failed = await runInvocation(call, { STANDIN_MODE: 'fail' });
  assert.is(failed.code, 1);
  assert.throws(() => agent.parseAnswer(failed.stdout), /codex reported an error: usage limit/);
  assert.is(agent.explainFailure?.(failed.stdout, failed.stderr), 'usage limit');
  assert.equal(agent.parseUsage?.(failed.stdout), {
    model: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
  });
  const blip = await runInvocation(call, { STANDIN_MODE: 'blip' });
  assert.is(blip.code, 0);
  assert.is(agent.parseAnswer(blip.stdout).text, 'echo:x|sandbox=read-only');
  assert.is(codexRetrying(blip.stdout), null);
});

create('not logged in, exec retries for ever; the retries show in its events', async () => {
  const agent = createCodexAgent();
  const call = agent.buildInvocation('x', { role: 'reviewer', cwd: '/tmp' });
  const { spawn } = await import('node:child_process');
  const { fixtures } = await import('./helpers.js');
  const child = spawn(call.command, call.args, {
    env: {
      ...process.env,
      PATH: `${fixtures}:${process.env.PATH ?? ''}`,
      CODEX_HOME: makeTempDir(),
      STANDIN_RETRY_MS: '20',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(call.stdin);
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  // Until the "waiting for network" events repeat (a Node start under load takes its time: wait on the output).
  await waitFor(() => (out.match(/waiting for network/g) ?? []).length >= 3, 60_000);
  assert.is(child.exitCode, null, 'still retrying');
  child.kill('SIGKILL');
  const retry = codexRetrying(out);
  assert.ok(retry !== null && retry.attempts > 6, JSON.stringify(retry));
  assert.is(retry?.message, 'Reconnecting... waiting for network (Connection failed: error sending request)');
  assert.throws(() => parseCodexEvents(out), /codex reported an error: Reconnecting\.\.\. waiting for network/);
});

create('a refused key is final from its first Reconnecting event; other retries are not', () => {
  // What Codex CLI 0.171.0 prints for a 401 (tests/real-agents gets it from the real CLI).
  const refused = (n: number) =>
    `{"type":"error","message":"Reconnecting... ${n}/5 (unexpected status 401 Unauthorized: invalid key, url: http://127.0.0.1:9/v1/responses)"}`;
  assert.equal(codexRetrying(`{"type":"turn.started"}\n${refused(1)}\n`), {
    attempts: 1,
    message:
      'Reconnecting... 1/5 (unexpected status 401 Unauthorized: invalid key, url: http://127.0.0.1:9/v1/responses)',
    final: true,
  });
  assert.is(codexRetrying(`${refused(1)}\n${refused(2)}\n`)?.attempts, 2);
  assert.is(
    codexRetrying('{"type":"error","message":"Reconnecting... 1/5 (unexpected status 403 Forbidden: no)"}')?.final,
    true,
  );
  assert.equal(
    codexRetrying('{"type":"error","message":"Reconnecting... 1/5 (We\'re currently experiencing high demand)"}'),
    {
      attempts: 1,
      message: "Reconnecting... 1/5 (We're currently experiencing high demand)",
    },
  );
});

create(
  'prices per million tokens (an agents-file entry) give the answer and the usage an estimated cost; none, a null one',
  async () => {
    const priced = createCodexAgent({ prices: { input: 2, output: 8 } });
    const ran = await runInvocation(priced.buildInvocation('hi', { role: 'verifier', cwd: makeWorktree() }));
    const answer = priced.parseAnswer(ran.stdout);
    const tokens = { input: Buffer.byteLength('hi') + 1000, output: Buffer.byteLength(answer.text) };
    const cost = (tokens.input * 2 + tokens.output * 8) / 1_000_000;
    assert.equal(answer.usage, {
      model: null,
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      cost_usd: cost,
      cost_estimated: true,
    });
    assert.equal(priced.parseUsage?.(ran.stdout), answer.usage);
    assert.is(createCodexAgent().parseUsage?.(ran.stdout)?.cost_usd, null);
    assert.is(priced.parseUsage?.(''), null);
    assert.equal(
      priced.parseUsage?.('{"type":"turn.started"}\n'),
      { model: null, input_tokens: null, output_tokens: null, cost_usd: null },
      'no tokens, no estimate',
    );
  },
);

create.run();

// ---

const parse = suite('parseCodexEvents');

parse('takes the last agent message and ignores other items and noise', () => {
  const lines = [
    'not json',
    '{"type":"item.completed","item":{"type":"agent_message","text":"a"}}',
    '[1]',
    '{bad',
    '{"type":"item.completed","item":{"type":"command_execution","command":"ls"}}',
    '{"type":"item.completed","item":{"type":"agent_message","text":"b"}}',
    '',
  ];
  assert.equal(parseCodexEvents(lines.join('\n')), { text: 'b' });
});

parse('throws on a failed turn, an error with no answer, no events, or no agent message', () => {
  assert.throws(() => parseCodexEvents('{"type":"error","message":"boom"}'), /codex reported an error: boom/);
  assert.throws(
    () =>
      parseCodexEvents('{"type":"item.completed","item":{"type":"agent_message","text":"a"}}\n{"type":"turn.failed"}'),
    /codex reported an error: turn failed/,
  );
  assert.throws(() => parseCodexEvents('final text only'), /expected JSON Lines events on stdout/);
  assert.throws(
    () => parseCodexEvents('{"type":"turn.started"}\n{"type":"item.completed"}\n{"type":"turn.completed"}'),
    /no completed agent_message item among 3 events/,
  );
});

parse.run();

// ---

const usage = suite('parseCodexUsage');

usage('the last turn.completed counts; no cost, no model; a bad count is null; no events is null', () => {
  const turn = (u: unknown) => JSON.stringify({ type: 'turn.completed', usage: u });
  assert.equal(
    parseCodexUsage(
      `${turn({ input_tokens: 1, output_tokens: 1 })}\n${turn({ input_tokens: 10, cached_input_tokens: 4, output_tokens: 2 })}`,
    ),
    {
      model: null,
      input_tokens: 10,
      output_tokens: 2,
      cost_usd: null,
    },
  );
  assert.equal(parseCodexUsage(turn({ input_tokens: -1, output_tokens: 1.5 })), {
    model: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
  });
  assert.equal(parseCodexUsage('{"type":"turn.started"}'), {
    model: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
  });
  assert.is(parseCodexUsage(''), null);
});

usage.run();

// ---

const explain = suite('explainCodexFailure');

explain('a failed turn, else the last error event, else the last line that is not a log line, else nothing', () => {
  assert.is(explainCodexFailure('{"type":"turn.failed","error":{"message":"quota"}}', 'x'), 'quota');
  assert.is(explainCodexFailure('{"type":"error","message":"a"}\n{"type":"error","message":"b"}', ''), 'b');
  assert.is(
    explainCodexFailure(
      '',
      '2026-12-01T07:06:33.916394Z ERROR codex_api: failed\nconfig is broken\n2026-12-01T07:06:34.1Z WARN x: y\n',
    ),
    'config is broken',
  );
  assert.is(explainCodexFailure('Logged out\n', ''), 'Logged out');
  assert.is(explainCodexFailure('', ''), null);
});

explain.run();

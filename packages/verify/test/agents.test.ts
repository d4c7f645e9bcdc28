import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { BUILTIN_AGENTS, agentList, loadAgentRegistry, resolveAgent } from '../src/index.js';
import { writeAgents, writeScript } from './helpers.js';

const load = suite('loadAgentRegistry');
load.after.each(cleanupTempDirs);

load('no file: the built-ins only; --agents wins over VERI_AGENTS', () => {
  assert.equal(loadAgentRegistry(undefined, {}), { file: null, entries: {}, roles: {} });
  assert.equal(loadAgentRegistry(undefined, { VERI_AGENTS: '' }), { file: null, entries: {}, roles: {} });
  const a = writeAgents({ x: { plugin: 'claude' } });
  const b = writeAgents({ y: { plugin: 'codex' } });
  assert.equal(Object.keys(loadAgentRegistry(undefined, { VERI_AGENTS: a }).entries), ['x']);
  assert.equal(Object.keys(loadAgentRegistry(b, { VERI_AGENTS: a }).entries), ['y']);
});

load('names the file and the agent when an entry is wrong', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ 'bad name': { plugin: 'claude' } }, /agent "bad name": expected a name of letters/],
    [{ a: 'claude' }, /agent "a": expected an object, found "claude"/],
    [
      { a: { plugin: 'openai' } },
      /expected "plugin" to be one of claude, codex, gemini, command, scripted, found "openai"/,
    ],
    [{ a: { plugin: 'claude', model: 4 } }, /expected "model" to be a string, found 4/],
    [{ a: { plugin: 'command', command: 'ls', family: 'f' } }, /expected "command" to be an array of strings/],
    [{ a: { plugin: 'command', command: ['ls'] } }, /a command agent needs "command" \(argv\) and "family"/],
    [{ a: { plugin: 'scripted' } }, /a scripted agent needs "script"/],
    [{ a: { plugin: 'claude', family: 'x y' } }, /expected "family" to be a word/],
    [
      { a: { plugin: 'claude', usd_per_million_tokens: { input: 1, output: 2 } } },
      /"usd_per_million_tokens" is for codex and gemini, which report no cost; claude reports its own or none/,
    ],
    [
      { a: { plugin: 'command', command: ['x'], family: 'f', usd_per_million_tokens: { input: 1, output: 2 } } },
      /"usd_per_million_tokens" is for codex and gemini/,
    ],
    [
      { a: { plugin: 'codex', usd_per_million_tokens: { input: 1 } } },
      /expected "usd_per_million_tokens" to be \{"input": USD, "output": USD\} \(non-negative numbers\), found "\{\\"input\\":1\}"/,
    ],
    [
      { a: { plugin: 'gemini', usd_per_million_tokens: { input: -1, output: 2 } } },
      /expected "usd_per_million_tokens" to be/,
    ],
    [
      { a: { plugin: 'gemini', usd_per_million_tokens: { input: 1, output: 2, cached: 0.1 } } },
      /expected "usd_per_million_tokens" to be/,
    ],
    [{ a: { plugin: 'codex', usd_per_million_tokens: [1, 2] } }, /expected "usd_per_million_tokens" to be/],
  ];
  for (const [agents, message] of cases)
    assert.throws(() => loadAgentRegistry(writeAgents(agents as Record<string, unknown>)), message);
  const dir = makeTempDir();
  writeFileSync(join(dir, 'agents.json'), '{"agents": [1]}');
  assert.throws(() => loadAgentRegistry(join(dir, 'agents.json')), /agents\.json: expected \{"agents"/);
  writeFileSync(join(dir, 'broken.json'), '{');
  assert.throws(() => loadAgentRegistry(join(dir, 'broken.json')), /broken\.json:1:2: not JSON: /);
});

load('prices on a codex or gemini entry reach its plugin: the usage it reads carries the estimated cost', () => {
  const registry = loadAgentRegistry(
    writeAgents({
      cx: { plugin: 'codex', usd_per_million_tokens: { input: 2, output: 8 } },
      gm: { plugin: 'gemini', usd_per_million_tokens: { input: 0, output: 1 } },
    }),
  );
  const codexOut = '{"type":"turn.completed","usage":{"input_tokens":1000000,"output_tokens":500000}}\n';
  assert.equal(resolveAgent('cx', registry).parseUsage?.(codexOut), {
    model: null,
    input_tokens: 1_000_000,
    output_tokens: 500_000,
    cost_usd: 6,
    cost_estimated: true,
  });
  const geminiOut = JSON.stringify({
    response: 'r',
    stats: { models: { m: { tokens: { prompt: 10, candidates: 2_000_000, total: 2_000_010 } } } },
  });
  assert.equal(resolveAgent('gm', registry).parseAnswer(geminiOut).usage?.cost_usd, 2);
  assert.is(resolveAgent('codex', registry).parseUsage?.(codexOut)?.cost_usd, null, 'the built-in has no prices');
});

load('roles: each listed role keeps its agents in order; a wrong list names the file, the role and the name', () => {
  const dir = makeTempDir();
  const file = join(dir, 'agents.json');
  const write = (data: unknown) => {
    writeFileSync(file, JSON.stringify(data));
    return file;
  };
  const agents = { mine: { plugin: 'codex' } };
  const found = loadAgentRegistry(
    write({ $comment: 'a note', agents, roles: { developer: ['claude', 'mine', 'gemini'], builder: ['gemini'] } }),
  );
  assert.equal(found.roles, { developer: ['claude', 'mine', 'gemini'], builder: ['gemini'] });
  const cases: Array<[unknown, RegExp]> = [
    [
      { agents, roles: { juror: ['claude'] } },
      /unknown role "juror" in "roles": expected developer, verifier, planner, builder/,
    ],
    [{ agents, roles: { developer: [] } }, /expected "roles.developer" to be a non-empty array of agent names/],
    [{ agents, roles: { developer: 'claude' } }, /expected "roles.developer" to be a non-empty array/],
    [
      { agents, roles: { verifier: ['codex', 'nobody'] } },
      /"roles.verifier" names "nobody", which is neither a built-in \(claude, codex, gemini\) nor an agent of this file/,
    ],
    [{ agents, roles: { planner: ['mine', 'mine'] } }, /"roles.planner" names an agent twice: "mine,mine"/],
    [{ agents, roles: ['claude'] }, /expected "roles" to be \{"developer": \[NAME...\], ...\}/],
    [{ agents, role: { developer: ['claude'] } }, /unknown key "role": expected "agents", "roles"/],
  ];
  for (const [data, message] of cases) {
    assert.throws(
      () => loadAgentRegistry(write(data)),
      (e: Error) => e.message.includes(file) && message.test(e.message),
    );
  }
});

load('agentList: one name or several by commas, each a name, none twice', () => {
  assert.equal(agentList('--developer', 'claude'), ['claude']);
  assert.equal(agentList('--developer', 'claude, gemini,codex'), ['claude', 'gemini', 'codex']);
  assert.throws(
    () => agentList('--developer', 'claude,,gemini'),
    /--developer: expected an agent name, or names separated by commas, found "claude,,gemini"/,
  );
  assert.throws(() => agentList('--builder', 'a,a'), /--builder: names an agent twice: "a,a"/);
  assert.throws(() => agentList('--builder', '$(touch x)'), /--builder: expected an agent name/);
});

load.run();

// ---

const resolve = suite('resolveAgent');
resolve.after.each(cleanupTempDirs);

resolve('built-ins by name with their families; entries of every plugin; a family override, read as its vendor', () => {
  const none = loadAgentRegistry(undefined, {});
  assert.equal(
    BUILTIN_AGENTS.map((n) => resolveAgent(n, none).family),
    ['anthropic', 'openai', 'google'],
  );
  const dir = makeTempDir();
  const script = writeScript([], 'replayed', dir);
  const registry = loadAgentRegistry(
    writeAgents(
      {
        fast: { plugin: 'claude', model: 'haiku', bin: '/opt/claude' },
        cx: { plugin: 'codex', extraArgs: ['--ephemeral'] },
        oss: { plugin: 'codex', model: 'llama3.1:8b' },
        mini: { plugin: 'codex', model: 'o4-mini' },
        gm: { plugin: 'gemini', family: 'gemma' },
        cmd: { plugin: 'command', command: ['echo', 'x'], family: 'local', env: { A: '1' } },
        rep: { plugin: 'scripted', script: 'script-replayed.json' },
        claude: { plugin: 'command', command: ['true'], family: 'shadow' },
      },
      dir,
    ),
  );
  const fast = resolveAgent('fast', registry);
  assert.is(fast.name, 'fast');
  assert.equal(fast.buildInvocation('p', { role: 'verifier', cwd: dir }).args.slice(3, 5), ['--model', 'haiku']);
  assert.is(fast.buildInvocation('p', { role: 'verifier', cwd: dir }).command, '/opt/claude');
  assert.equal(resolveAgent('cx', registry).buildInvocation('p', { role: 'reviewer', cwd: dir }).args.slice(-2), [
    '--ephemeral',
    '-',
  ]);
  assert.is(resolveAgent('gm', registry).family, 'google', 'same vendor, same family: gemma is google');
  assert.is(fast.family, 'anthropic');
  assert.is(
    resolveAgent('oss', registry).family,
    'meta',
    'a configured model names the family when the table knows its vendor',
  );
  assert.is(resolveAgent('mini', registry).family, 'openai');
  assert.is(resolveAgent('gm', registry).buildInvocation('p', { role: 'reviewer', cwd: dir }).command, 'gemini');
  assert.is(resolveAgent('cmd', registry).buildInvocation('p', { role: 'reviewer', cwd: dir }).env?.A, '1');
  const rep = resolveAgent('rep', registry);
  assert.is(rep.family, 'replayed');
  assert.equal(rep.buildInvocation('p', { role: 'reviewer', cwd: dir }).args.at(-1), script);
  assert.is(resolveAgent('claude', registry).family, 'shadow', 'an entry shadows a built-in');
});

resolve('an unknown name lists the known ones', () => {
  assert.throws(
    () => resolveAgent('gpt', loadAgentRegistry(undefined, {})),
    /unknown agent "gpt": expected one of claude, codex, gemini \(define others in an agents file/,
  );
  assert.throws(
    () => resolveAgent('gpt', loadAgentRegistry(writeAgents({ mine: { plugin: 'claude' } }))),
    /expected one of claude, codex, gemini, mine$/,
  );
  assert.throws(
    () => resolveAgent('cladue', loadAgentRegistry(undefined, {})),
    /^unknown agent "cladue" \(did you mean "claude"\?\)/,
  );
});

resolve('an agent whose plugin cannot be made is named: a scripted entry whose script is missing', () => {
  const file = writeAgents({ developer: { plugin: 'scripted', script: 'gone.json' } });
  assert.throws(
    () => resolveAgent('developer', loadAgentRegistry(file)),
    (error: Error & { exitCode?: number }) =>
      error.message.startsWith(`agent "developer" of ${file}: `) &&
      /gone\.json: cannot read the script/.test(error.message) &&
      error.exitCode === 2,
  );
});

resolve.run();

// ---

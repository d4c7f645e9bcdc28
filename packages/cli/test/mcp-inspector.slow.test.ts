// `leap mcp` through the official MCP inspector's CLI (@modelcontextprotocol/inspector, from npm, pinned and
// installed once into the test cache): its strict schema check passes, every tool carries its annotations,
// the tools that return data declare an output schema and answer with structured content, and it drives a
// run that was stopped: status says stopped, tdd_run resumes it, polled to its end (issue 42 §4 and §7).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, repoRoot, waitFor } from '@leap/test-utils';
import { MCP_TOOLS } from '../src/mcp-server.js';

const INSPECTOR = { pkg: '@modelcontextprotocol/inspector', version: '2.12.0' };
const CACHE = process.env.LEAP_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'leap-test');
const BIN = join(repoRoot, 'packages', 'cli', 'bin', 'leap.cjs');

// The inspector's bin, installed beside its place and renamed into it the first time (a killed install leaves no half folder).
function inspectorBin(): string {
  const dir = join(CACHE, 'tools', `inspector@${INSPECTOR.version}`);
  const bin = join(dir, 'node_modules', '.bin', 'mcp-inspector');
  if (existsSync(bin)) return bin;
  mkdirSync(join(CACHE, 'tools'), { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), '{"private": true}\n');
    const spec = `${INSPECTOR.pkg}@${INSPECTOR.version}`;
    execFileSync(
      'npm',
      ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return bin;
}

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VERI_|LEAP_|npm_|NX_)/.test(k)));
}

type Call = { code: number | null; json: Record<string, unknown>; stderr: string };
// One inspector run against `leap mcp` started in `cwd`: its answer as JSON.
function inspect(cwd: string, args: string[]): Call {
  const r = spawnSync(inspectorBin(), ['--cli', '--format', 'json', ...args, process.execPath, BIN, 'mcp'], {
    cwd,
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: 120_000,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    assert.unreachable(`the inspector printed no JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
  return { code: r.status, json, stderr: r.stderr };
}
const call = (cwd: string, tool: string, args: Record<string, unknown>) => {
  const r = inspect(cwd, ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)]);
  return (r.json.result ?? r.json) as {
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
    content: { text: string }[];
  };
};

const inspector = suite('leap mcp through the official MCP inspector CLI');
const ctx = { demo: '' };
inspector.after(cleanupTempDirs);

inspector(
  'tools/list --strict: the ten tools, schemas without an error, annotations on each, output schemas on the data tools',
  () => {
    const dir = makeTempDir('leap-inspector-');
    git(dir, 'init', '-q');
    const r = inspect(dir, ['--method', 'tools/list', '--strict']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /\b0 errors\b/);
    type Tool = {
      name: string;
      title?: string;
      annotations?: Record<string, unknown>;
      outputSchema?: { type: string };
    };
    const tools = (r.json.result as { tools: Tool[] } | undefined)?.tools ?? (r.json.tools as Tool[]);
    assert.equal(tools.map((t) => t.name).sort(), [...MCP_TOOLS].sort());
    for (const t of tools) {
      assert.ok(
        typeof t.annotations?.readOnlyHint === 'boolean' && typeof t.annotations?.destructiveHint === 'boolean',
        `${t.name}: ${JSON.stringify(t.annotations)}`,
      );
      assert.ok(
        typeof t.annotations?.idempotentHint === 'boolean' && typeof t.annotations?.openWorldHint === 'boolean',
        t.name,
      );
      assert.ok((t.title ?? '') !== '', t.name);
    }
    assert.equal(
      tools
        .filter((t) => t.outputSchema?.type === 'object')
        .map((t) => t.name)
        .sort(),
      MCP_TOOLS.filter((n) => n !== 'tdd_stop').sort(),
    );
  },
);

inspector('a leap demo stopped mid-run: tdd_status says stopped (at-leaf), with structured content', async () => {
  ctx.demo = join(makeTempDir('leap-inspector-demo-'), 'repo');
  const child = spawn(process.execPath, [BIN, 'demo', '--dir', ctx.demo], { env: cleanEnv(), stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const events = join(ctx.demo, '.tdd', 'events.jsonl');
  await waitFor(() => existsSync(events) && readFileSync(events, 'utf8').includes('"event":"launch"'), 60_000);
  const stop = call(ctx.demo, 'tdd_stop', { mode: 'at-leaf' });
  assert.is(stop.isError, false, JSON.stringify(stop));
  assert.is(await exited, 3);
  const status = call(ctx.demo, 'tdd_status', { issue: 1 }).structuredContent as {
    status: { stop: string | null; stopped: { mode: string } | null; done: number };
  };
  assert.equal([status.status.stop, status.status.stopped?.mode, status.status.done], [null, 'at-leaf', 0]);
});

inspector(
  'tdd_run resumes it detached; tdd_status polled to its end; verdicts and report answer with data',
  async () => {
    const started = call(ctx.demo, 'tdd_run', { issue: 1 });
    assert.is(started.isError, false, JSON.stringify(started));
    assert.is(started.structuredContent?.poll, 'tdd_status');
    type Polled = {
      status: { done: number; stopped: unknown };
      detached: { running: boolean; result?: { outcome: string } } | null;
    };
    let polled: Polled | undefined;
    await waitFor(
      () => {
        polled = call(ctx.demo, 'tdd_status', { issue: 1 }).structuredContent as Polled;
        return polled.detached !== null && !polled.detached.running;
      },
      240_000,
      'the resumed run to end',
    );
    assert.equal([polled?.detached?.result?.outcome, polled?.status.done, polled?.status.stopped], ['done', 3, null]);
    const verdicts = call(ctx.demo, 'verdicts', { issue: 1, last: 50 }).structuredContent as {
      verdicts: { verdict: string }[];
    };
    assert.is(verdicts.verdicts.filter((v) => v.verdict === 'REJECT').length, 1);
    const report = call(ctx.demo, 'report', {}).structuredContent as { file: string; leaves: number };
    assert.is(report.file, join(ctx.demo, '.tdd', 'leap-report.html'));
    assert.ok(report.leaves >= 21);
    assert.is(git(ctx.demo, 'status', '--porcelain'), '', 'the report left the work tree clean');
  },
);

inspector.run();

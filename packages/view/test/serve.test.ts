// `leap serve`: the report as a live page behind a token. In process (the token, the page, the stream of
// updates, the end) and through the umbrella bin (TERM ends it and it leaves nothing); in Debian's
// chromium in serve-browser.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { cleanupTempDirs, git, makeTempDir, waitFor } from '@leap/test-utils';
import { renderLivePage, startLiveServer } from '../src/serve.js';
import { serveMain } from '../src/serve-cli.js';
import { captureIo, cleanEnv, fixture, leapBin, repoWith } from './helpers.js';

function get(url: string, method = 'GET'): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    // A new connection each time (no agent keeping one open), as a browser's first visit makes.
    const req = request(url, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Open the event stream and collect what it sends, until `close()`. */
function stream(url: string): { text: () => string; close: () => void; ended: Promise<void> } {
  let text = '';
  let close = (): void => undefined;
  const ended = new Promise<void>((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', (e) => (text === '' ? reject(e) : resolve()));
    close = () => req.destroy();
    req.end();
  });
  return { text: () => text, close, ended };
}

const serve = suite('leap serve');
serve.after(cleanupTempDirs);

serve('the page needs the token: none, a wrong one, a longer path and another method are refused', async () => {
  const repo = repoWith({ '.tdd/events.jsonl': fixture('demo.jsonl') });
  const server = await startLiveServer({ cwd: repo, env: cleanEnv() });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    assert.is(server.host, '127.0.0.1');
    const root = `http://127.0.0.1:${server.port}`;
    const token = server.url.slice(root.length + 1, -1);
    for (const path of [
      '/',
      '/page',
      `/${token.slice(0, -1)}/`,
      `/${token}x/`,
      `/${token.toUpperCase()}/`,
      `/${token}/page/x`,
      '/../',
    ]) {
      const r = await get(`${root}${path}`);
      assert.is(r.status, 403, path);
      assert.not.match(r.body, /leap report/);
    }
    assert.is((await get(server.url, 'POST')).status, 405);
    assert.is((await get(`${server.url}nothing`)).status, 404);
    const page = await get(server.url);
    assert.is(page.status, 200);
    assert.is(page.type, 'text/html; charset=utf-8');
    // The report, with its one script allowed by a nonce and nothing else loaded from anywhere.
    const nonce = /<script nonce="([^"]+)">/.exec(page.body)?.[1];
    assert.ok(nonce !== undefined && nonce.length >= 20);
    assert.ok(
      page.body.includes(
        `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-${nonce}'; connect-src 'self'"`,
      ),
    );
    assert.is(page.body.match(/<script/g)?.length, 1);
    assert.not.match(page.body, /\b(?:src|href)="(?:https?:)?\/\//);
    assert.match(page.body, /<title>leap report: /);
    // Each page gets a nonce of its own; the fragment the script fetches has no script at all.
    assert.is.not(/<script nonce="([^"]+)">/.exec((await get(server.url)).body)?.[1], nonce);
    const fragment = await get(`${server.url}page`);
    assert.is(fragment.status, 200);
    assert.not.match(fragment.body, /<script/);
    assert.ok(fragment.body.includes(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`));
    assert.is((await get(server.url, 'HEAD')).body, '');
  } finally {
    await server.close();
  }
});

serve(
  'the stream sends an update when the event log grows, and ends when the server stops; nothing is written',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('demo.jsonl') });
    const before = readdirSync(join(repo, '.tdd')).sort();
    const server = await startLiveServer({ cwd: repo, env: cleanEnv() });
    const events = stream(`${server.url}events`);
    await waitFor(() => events.text().includes('retry: 1000'), 10_000);
    const sent = server.updates;
    // Only what the stream says after the append counts (under load an earlier update may still be arriving).
    const seen = events.text().length;
    appendFileSync(
      join(repo, '.tdd/events.jsonl'),
      `${JSON.stringify({ ts: new Date().toISOString(), event: 'launch', issue: 1, step: 'A new step, $(x) `y`', skill_commit: null, leaf: 'develop-red', actor: 'developer', phase: 'red', attempt: 1, pid: 999999, cmd: ['x'], run: 'r-new' })}\n`,
    );
    assert.ok(
      await waitFor(
        () => /event: update\ndata: \d+\n\n/.test(events.text().slice(seen)) && server.updates > sent,
        20_000,
        'an update after the append',
      ),
      `no update came: ${events.text()}`,
    );
    assert.match((await get(`${server.url}page`)).body, /A new step, \$\(x\) `y`/);
    await server.close();
    await events.ended;
    assert.equal(readdirSync(join(repo, '.tdd')).sort(), before);
    await get(server.url).then(
      () => assert.unreachable('the server still answers'),
      (e: NodeJS.ErrnoException) => assert.is(e.code, 'ECONNREFUSED'),
    );
  },
);

serve('a folder where nothing ran yet serves a page that says so', () => {
  const dir = makeTempDir('leap-serve-empty-');
  assert.match(renderLivePage(dir, cleanEnv(), null), /no events yet/);
});

serve('leap serve --help, bad options, a port in use', async () => {
  const dir = makeTempDir();
  const help = captureIo(dir);
  assert.is(await serveMain(['--help'], help.io), 0);
  assert.match(help.out(), /^Usage: leap serve \[--dir DIR\] \[--port N\] \[--host H\] \[--json\]/);
  assert.match(help.out(), /exposes the page/);
  for (const [argv, message] of [
    [['--port', 'eighty'], /--port to be a port number/],
    [['--port', '70000'], /--port to be a port number/],
    [['--host', ''], /--host to name an address/],
    [['extra'], /unexpected argument "extra"/],
  ] as const) {
    const e = await serveMain([...argv], captureIo(dir).io).then(
      () => null,
      (error: { exitCode: number; message: string }) => error,
    );
    assert.is(e?.exitCode, 2, argv.join(' '));
    assert.match(e?.message ?? '', message);
  }
  const taken = await startLiveServer({ cwd: dir, env: cleanEnv() });
  try {
    const e = await serveMain(['--port', String(taken.port)], captureIo(dir).io).then(
      () => null,
      (error: { exitCode: number; message: string }) => error,
    );
    assert.is(e?.exitCode, 2);
    assert.match(e?.message ?? '', new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${taken.port}: .*EADDRINUSE`));
  } finally {
    await taken.close();
  }
});

serve(
  'through the umbrella bin: --json prints the address, TERM ends it with 0, and it leaves nothing behind',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('demo.jsonl') });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'a run');
    const child = spawn(process.execPath, [leapBin(), 'serve', '--json'], {
      cwd: repo,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => out.includes('\n'), 20_000);
    const printed = JSON.parse(out) as { url: string; host: string; port: number };
    assert.is(printed.host, '127.0.0.1');
    assert.is((await get(printed.url)).status, 200);
    const events = stream(`${printed.url}events`);
    await waitFor(() => events.text().includes('retry'), 10_000);
    child.kill('SIGTERM');
    assert.is(await exited, 0, err);
    await events.ended;
    assert.is(err, '');
    assert.is(git(repo, 'status', '--porcelain', '--ignored'), '');
  },
);

serve.run();

// The report behind a random token in the path, plus one nonce-allowed script that swaps in each new report.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clockTime } from './_text.js';
import { collectView } from './collect-view.js';
import { REPORT_CSP, renderReport } from './report-html.js';
import { watchStatus } from './watch-status.js';

/** `host` 127.0.0.1 and `port` 0 (a free one) unless given. */
type ServeOptions = { cwd: string; env: NodeJS.ProcessEnv; host?: string; port?: number };

/** `url`: the page's address, token included; `close`: stop listening, end every page's stream and the watch. */
export type LiveServer = { url: string; host: string; port: number; readonly updates: number; close(): Promise<void> };

// Never a reload: where a person scrolled and which groups they opened stay as they were.
const LIVE_SCRIPT = `
addEventListener('DOMContentLoaded', () => {
  const open = () => [...document.querySelectorAll('details')].map((d) => d.open);
  let busy = false, again = false;
  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const res = await fetch('page', { cache: 'no-store' });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        const was = open(), x = scrollX, y = scrollY;
        document.body.replaceWith(doc.body);
        document.querySelectorAll('details').forEach((d, i) => { if (was[i] !== undefined) d.open = was[i]; });
        scrollTo(x, y);
        document.documentElement.dataset.updates = String(Number(document.documentElement.dataset.updates || 0) + 1);
      }
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  };
  const state = (on) => {
    document.documentElement.dataset.live = on ? 'on' : 'off';
    const word = document.querySelector('#live b');
    if (word) word.textContent = on ? 'live' : 'reconnecting';
  };
  const events = new EventSource('events');
  events.addEventListener('update', refresh);
  events.addEventListener('open', () => state(true));
  events.addEventListener('error', () => state(false));
});`;

/** `nonce` allows the page's one script; the page fetched again on an update has none (null). */
export function renderLivePage(cwd: string, env: NodeJS.ProcessEnv, nonce: string | null): string {
  const parts: string[] = [];
  const view = collectView({ cwd, env });
  renderReport(view, parts);
  const badge =
    '<span id="live" title="this page updates itself as the runs go on"><i></i><b>live</b> · ' +
    `updated <time>${clockTime(view.now)}Z</time></span>`;
  const html = parts.join('').replace('<h1>leap report</h1>', `<h1>leap report${badge}</h1>`);
  if (nonce === null) return html;
  return html
    .replace(REPORT_CSP, `${REPORT_CSP}; script-src 'nonce-${nonce}'; connect-src 'self'`)
    .replace('</head>', `<script nonce="${nonce}">${LIVE_SCRIPT}</script></head>`);
}

function sameToken(given: string, token: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

const HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

function sendText(res: ServerResponse, status: number, text: string | undefined, type = 'text/plain'): void {
  res.writeHead(status, { ...HEADERS, 'content-type': `${type}; charset=utf-8` }).end(text);
}

type Site = { options: ServeOptions; token: string; streams: Set<ServerResponse> };

/** `/TOKEN/` is the page with its script, `/TOKEN/page` the page alone, `/TOKEN/events` the stream of updates. */
function answer(req: IncomingMessage, res: ServerResponse, { options, token, streams }: Site): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const [, given = '', what = '', ...more] = path.split('/');
  if (!sameToken(given, token) || more.length > 0)
    sendText(res, 403, 'forbidden: this page needs the token of the URL leap serve printed\n');
  else if (req.method !== 'GET' && req.method !== 'HEAD') res.writeHead(405, { ...HEADERS, allow: 'GET, HEAD' }).end();
  else if (what === 'events') {
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
  } else if (what !== '' && what !== 'page') sendText(res, 404, 'not found\n');
  else {
    let html: string;
    try {
      html = renderLivePage(options.cwd, options.env, what === '' ? randomBytes(16).toString('base64') : null);
    } catch (error) {
      return void sendText(res, 500, `the report could not be made: ${(error as Error).message}\n`);
    }
    sendText(res, 200, req.method === 'HEAD' ? undefined : html, 'text/html');
  }
}

export async function startLiveServer(options: ServeOptions): Promise<LiveServer> {
  const token = randomBytes(16).toString('hex');
  const host = options.host ?? '127.0.0.1';
  const streams = new Set<ServerResponse>();
  let updates = 0;
  const broadcast = (text: string): void => {
    for (const res of streams) res.write(text);
  };
  const { createServer } = await import('node:http');
  const site: Site = { options, token, streams };
  const server = createServer((req, res) => answer(req, res, site)).listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  // The status watch says when anything the report shows has changed; a failed one leaves pages served on request.
  const watching = new AbortController();
  const watched = watchStatus({
    cwd: options.cwd,
    env: options.env,
    signal: watching.signal,
    onFrame: (_data, changed) => changed && broadcast(`event: update\ndata: ${++updates}\n\n`),
  }).catch(() => undefined);
  // Comments keep idle streams open through proxies, and tell a page at once when the server is gone.
  const keepAlive = setInterval(() => broadcast(': alive\n\n'), 15_000).unref();
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/${token}/`,
    host,
    port,
    get updates() {
      return updates;
    },
    async close() {
      clearInterval(keepAlive);
      watching.abort();
      for (const res of streams) res.end();
      streams.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await watched;
    },
  };
}

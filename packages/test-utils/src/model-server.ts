// A scripted model server on loopback that answers as the vendors' APIs do, for the real agent CLIs:
// Anthropic Messages (Claude Code), OpenAI Responses (Codex CLI), Gemini generateContent and
// streamGenerateContent (Gemini CLI), in the shapes the CLIs' recorded runs show (each agent plugin's
// test/fixtures/recorded). The server is a script of turns: a request whose
// conversation already holds N model turns gets turn N of the script, so a CLI's retries of a turn get
// the same turn again, and a tool's result (which comes back in the next request) moves the script on.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { appendFileSync } from 'node:fs';

/** What the server can be asked to fail with, instead of answering. */
export type ModelFault =
  /** The vendor's authentication error (a bad key). */
  | 401
  /** The vendor's rate-limit error. */
  | 429
  /** The vendor's server error. */
  | 500
  /** Overloaded (Anthropic's 529 `overloaded_error`; 503 `UNAVAILABLE` for Gemini and OpenAI). */
  | 'overload'
  /**
   * A spent quota, as each vendor answers one: Anthropic 400 `invalid_request_error` "Your credit balance is too
   * low..."; OpenAI 429 `insufficient_quota`; Gemini 429 `RESOURCE_EXHAUSTED` "You exceeded your current quota..."
   * with a `QuotaFailure` naming a per-day limit.
   */
  | 'quota'
  /** The request is read and never answered: no status, no bytes, the connection held open. */
  | 'hang'
  /** The connection is closed before anything is answered. */
  | 'close';

/** One turn of the model: what it says or which tool it calls. Paths are used as given (make them absolute). */
export type ModelAction =
  | { text: string }
  | { write: string; content: string }
  | { read: string }
  | { run: string }
  /** The answer in a requested shape: Claude's StructuredOutput tool when it is offered, else the JSON as text. */
  | { structured: unknown };

/** A turn: an action, optionally preceded by a fault for the first `faultTimes` requests of this turn (all of them by default). */
export type ModelTurn = ModelAction & {
  fault?: ModelFault;
  faultTimes?: number;
  usage?: { input?: number; output?: number; cached?: number };
};

export type ModelVendor = 'anthropic' | 'openai' | 'google';

/** One request, as logged. */
export interface ModelRequest {
  vendor: ModelVendor | null;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The script's turn this request was answered with; null for auxiliary calls (a router, a probe) and unknown paths. */
  turn: number | null;
  /** How it was answered: the HTTP status, or the fault. */
  answer: number | 'hang' | 'close';
  /** The `when` of the conversation script it was answered from (options.conversations), else null. */
  conversation?: string | null;
  /** The tokens reported in the answer (input counts cached ones), when it was a model answer. */
  usage: { input: number; output: number; cached: number } | null;
}

export interface ModelServerOptions {
  /** The turns; past the end, every conversation ends with the text `done`. */
  script?: ModelTurn[];
  /**
   * Scripts per conversation, for a run of several leaves on one server: a request whose body (as JSON
   * text) contains `when` is answered from that script (the first that matches), else from `script`.
   * A conversation's later requests carry its first prompt again, so they keep its script.
   */
  conversations?: { when: string; script: ModelTurn[] }[];
  /** The model named in answers when the request names none. */
  model?: string;
  /** The share of input tokens reported as cached (read from a cache); default 0.25. */
  cachedShare?: number;
  /** Append each request, as one JSON line, to this file too. */
  logFile?: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Every request so far, in arrival order. */
  requests: ModelRequest[];
  /** The tokens reported by model answers so far (input includes the cached ones), per vendor or in all. */
  usage(vendor?: ModelVendor): { answers: number; input: number; output: number; cached: number };
  /** Replace the script (the next request reads the new one). */
  setScript(script: ModelTurn[]): void;
  /** Wait until a request matching `check` has arrived. */
  waitForRequest(check: (request: ModelRequest) => boolean): Promise<ModelRequest>;
  close(): Promise<void>;
}

/** Start the server on a free port of 127.0.0.1. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  let script = options.script ?? [];
  const cachedShare = options.cachedShare ?? 0.25;
  const requests: ModelRequest[] = [];
  const faultCounts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const waiters: { check: (r: ModelRequest) => boolean; resolve: (r: ModelRequest) => void }[] = [];
  let sequence = 0;

  const log = (request: ModelRequest) => {
    requests.push(request);
    if (options.logFile !== undefined) appendFileSync(options.logFile, `${JSON.stringify(request)}\n`);
    for (const waiter of waiters.splice(0)) {
      if (waiter.check(request)) waiter.resolve(request);
      else waiters.push(waiter);
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {
        body = raw;
      }
      handle(req, res, body, raw.length);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Codex tries a WebSocket first; refusing the upgrade makes it fall back to HTTPS streaming.
  server.on('upgrade', (req, socket) => {
    log({
      vendor: vendorOf(req.url ?? ''),
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: null,
      turn: null,
      answer: 426,
      usage: null,
    });
    socket.end('HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: unknown, bytes: number): void {
    const url = req.url ?? '';
    const method = req.method ?? '';
    const vendor = vendorOf(url);
    const entry: ModelRequest = {
      vendor,
      method,
      url,
      headers: req.headers,
      body,
      turn: null,
      answer: 200,
      usage: null,
    };
    if (vendor === null || method !== 'POST') {
      // Claude Code's `HEAD /` probe, a models list, anything else: an empty success, logged.
      const known = method === 'HEAD' || url === '/' || /\/models\/?(\?|$)/.test(url);
      entry.answer = known ? 200 : 404;
      log(entry);
      res.writeHead(entry.answer, { 'content-type': 'application/json' });
      res.end(
        method === 'HEAD'
          ? undefined
          : known
            ? JSON.stringify({ object: 'list', data: [], models: [] })
            : JSON.stringify({ error: { message: `not found: ${url}` } }),
      );
      return;
    }
    const aux = isAuxiliary(vendor, url, body);
    const index = aux ? null : turnIndex(vendor, body);
    entry.turn = index;
    const text = index === null || options.conversations === undefined ? '' : JSON.stringify(body);
    const chosen = options.conversations?.find((c) => text.includes(c.when));
    const turns = chosen?.script ?? script;
    entry.conversation = chosen?.when ?? null;
    const turn: ModelTurn = index === null ? auxiliaryTurn(vendor) : (turns[index] ?? { text: 'done' });
    if (index !== null && turn.fault !== undefined) {
      const key = `${vendor}:${chosen?.when ?? ''}:${index}`;
      const seen = faultCounts.get(key) ?? 0;
      if (seen < (turn.faultTimes ?? Number.POSITIVE_INFINITY)) {
        faultCounts.set(key, seen + 1);
        fail(vendor, turn.fault, entry, res);
        return;
      }
    }
    const offered = toolNames(vendor, body);
    const action = resolveAction(vendor, turn, offered);
    const outputText = JSON.stringify(action);
    const input = turn.usage?.input ?? Math.max(1, Math.ceil(bytes / 4));
    const output = turn.usage?.output ?? Math.max(1, Math.ceil(outputText.length / 4));
    const cached = Math.min(input, turn.usage?.cached ?? Math.floor(input * cachedShare));
    entry.usage = { input, output, cached };
    log(entry);
    const model = modelOf(vendor, url, body) ?? options.model ?? 'stub-model';
    const stream = isStreaming(vendor, url, body);
    const id = `${++sequence}`;
    if (vendor === 'anthropic') anthropicAnswer(res, action, model, entry.usage, stream, id);
    else if (vendor === 'openai') openaiAnswer(res, action, model, entry.usage, id);
    else googleAnswer(res, action, model, entry.usage, stream);
  }

  function fail(vendor: ModelVendor, fault: ModelFault, entry: ModelRequest, res: ServerResponse): void {
    if (fault === 'hang') {
      entry.answer = 'hang';
      log(entry);
      return;
    }
    if (fault === 'close') {
      entry.answer = 'close';
      log(entry);
      res.socket?.destroy();
      return;
    }
    const { status, payload } = errorAnswer(vendor, fault);
    entry.answer = status;
    log(entry);
    // No x-should-retry header: what each CLI does with the bare status is what the tests are about.
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(fault === 401 || fault === 'quota' ? {} : { 'retry-after': '1' }),
    });
    res.end(JSON.stringify(payload));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    usage(vendor) {
      const answered = requests.filter((r) => r.usage !== null && (vendor === undefined || r.vendor === vendor));
      return answered.reduce(
        (t, r) => ({
          answers: t.answers + 1,
          input: t.input + (r.usage?.input ?? 0),
          output: t.output + (r.usage?.output ?? 0),
          cached: t.cached + (r.usage?.cached ?? 0),
        }),
        {
          answers: 0,
          input: 0,
          output: 0,
          cached: 0,
        },
      );
    },
    setScript(next) {
      script = next;
      faultCounts.clear();
    },
    waitForRequest(check) {
      const seen = requests.find(check);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ check, resolve }));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function vendorOf(url: string): ModelVendor | null {
  if (/^\/v1\/messages(\?|$)/.test(url)) return 'anthropic';
  if (/^\/v1\/responses(\?|$)/.test(url)) return 'openai';
  if (/\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?|$)/.test(url)) return 'google';
  return null;
}

function isStreaming(vendor: ModelVendor, url: string, body: unknown): boolean {
  if (vendor === 'google') return url.includes(':streamGenerateContent');
  return (body as { stream?: unknown } | null)?.stream === true;
}

function modelOf(vendor: ModelVendor, url: string, body: unknown): string | null {
  if (vendor === 'google') return /\/models\/([^/:]+):/.exec(url)?.[1] ?? null;
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : null;
}

// A call that is not the conversation: Gemini's model router and its other JSON questions (non-streaming
// generateContent), and Claude Code's side calls that offer no tools (a title, a quota probe).
function isAuxiliary(vendor: ModelVendor, url: string, body: unknown): boolean {
  if (vendor === 'google') return !url.includes(':streamGenerateContent');
  if (vendor === 'anthropic') {
    const tools = (body as { tools?: unknown } | null)?.tools;
    return !Array.isArray(tools) || tools.length === 0;
  }
  return false;
}

// One JSON object that answers each auxiliary question Gemini asks (its routers, its next-speaker check).
function auxiliaryTurn(vendor: ModelVendor): ModelTurn {
  if (vendor === 'google') {
    return {
      text: JSON.stringify({
        reasoning: 'stub',
        model_choice: 'flash',
        complexity_reasoning: 'stub',
        complexity_score: 50,
        next_speaker: 'user',
      }),
    };
  }
  return { text: 'ok' };
}

// How many model turns the request's conversation already holds.
function turnIndex(vendor: ModelVendor, body: unknown): number {
  const b = (body ?? {}) as Record<string, unknown>;
  if (vendor === 'anthropic')
    return asArray(b.messages).filter((m) => (m as { role?: unknown }).role === 'assistant').length;
  if (vendor === 'google') return asArray(b.contents).filter((m) => (m as { role?: unknown }).role === 'model').length;
  const input = asArray(b.input);
  return input.filter((item) => {
    const i = item as { type?: unknown; role?: unknown };
    return (
      i.type === 'function_call' ||
      i.type === 'custom_tool_call' ||
      i.type === 'local_shell_call' ||
      (i.type === 'message' && i.role === 'assistant')
    );
  }).length;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function toolNames(vendor: ModelVendor, body: unknown): string[] {
  const tools = asArray((body as { tools?: unknown } | null)?.tools);
  if (vendor === 'google') {
    return tools.flatMap((t) =>
      asArray((t as { functionDeclarations?: unknown }).functionDeclarations).map((d) =>
        String((d as { name?: unknown }).name),
      ),
    );
  }
  return tools.map((t) => String((t as { name?: unknown }).name));
}

/** A tool call or a text, in one vendor's terms. */
type Resolved = { kind: 'text'; text: string } | { kind: 'tool'; name: string; input: Record<string, unknown> };

function resolveAction(vendor: ModelVendor, action: ModelAction, offered: string[]): Resolved {
  if ('text' in action) return { kind: 'text', text: action.text };
  if ('structured' in action) {
    if (vendor === 'anthropic' && offered.includes('StructuredOutput'))
      return { kind: 'tool', name: 'StructuredOutput', input: action.structured as Record<string, unknown> };
    return { kind: 'text', text: JSON.stringify(action.structured) };
  }
  if (vendor === 'anthropic') {
    if ('write' in action)
      return { kind: 'tool', name: 'Write', input: { file_path: action.write, content: action.content } };
    if ('read' in action) return { kind: 'tool', name: 'Read', input: { file_path: action.read } };
    return { kind: 'tool', name: 'Bash', input: { command: action.run, description: 'run a command' } };
  }
  if (vendor === 'google') {
    if ('write' in action)
      return { kind: 'tool', name: 'write_file', input: { file_path: action.write, content: action.content } };
    if ('read' in action) return { kind: 'tool', name: 'read_file', input: { file_path: action.read } };
    return { kind: 'tool', name: 'run_shell_command', input: { command: action.run, description: 'run a command' } };
  }
  // Codex's one shell tool does all three.
  const command =
    'write' in action
      ? `printf '%s' ${shellQuote(action.content)} > ${shellQuote(action.write)}`
      : 'read' in action
        ? `cat ${shellQuote(action.read)}`
        : action.run;
  return { kind: 'tool', name: 'exec_command', input: { cmd: command } };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

type Usage = { input: number; output: number; cached: number };

function sse(res: ServerResponse, events: [string | null, unknown][]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [name, data] of events)
    res.write(`${name === null ? '' : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`);
  res.end();
}

function anthropicAnswer(
  res: ServerResponse,
  action: Resolved,
  model: string,
  usage: Usage,
  stream: boolean,
  id: string,
): void {
  const messageId = `msg_stub${id}`;
  const block =
    action.kind === 'text'
      ? { type: 'text', text: action.text }
      : { type: 'tool_use', id: `toolu_stub${id}`, name: action.name, input: action.input };
  const stopReason = action.kind === 'text' ? 'end_turn' : 'tool_use';
  const inUsage = {
    input_tokens: usage.input - usage.cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached,
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_stub${id}` });
    res.end(
      JSON.stringify({
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...inUsage, output_tokens: usage.output },
      }),
    );
    return;
  }
  const start = action.kind === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
  const delta =
    action.kind === 'text'
      ? { type: 'text_delta', text: action.text }
      : { type: 'input_json_delta', partial_json: JSON.stringify(action.input) };
  sse(res, [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...inUsage, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

function openaiAnswer(res: ServerResponse, action: Resolved, model: string, usage: Usage, id: string): void {
  let n = 0;
  const event = (type: string, data: Record<string, unknown>): [string, unknown] => [
    type,
    { type, sequence_number: n++, ...data },
  ];
  const responseId = `resp_stub${id}`;
  const itemId = action.kind === 'text' ? `msg_stub${id}` : `fc_stub${id}`;
  const base = {
    id: responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    output: [] as unknown[],
  };
  const events: [string, unknown][] = [
    event('response.created', { response: { ...base, status: 'in_progress' } }),
    event('response.in_progress', { response: { ...base, status: 'in_progress' } }),
  ];
  let item: Record<string, unknown>;
  if (action.kind === 'text') {
    const part = { type: 'output_text', text: action.text, annotations: [] };
    item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    events.push(
      event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
      event('response.content_part.added', {
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        part: { ...part, text: '' },
      }),
      event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: action.text }),
      event('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text: action.text }),
      event('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part }),
    );
  } else {
    const args = JSON.stringify(action.input);
    item = {
      id: itemId,
      type: 'function_call',
      status: 'completed',
      call_id: `call_stub${id}`,
      name: action.name,
      arguments: args,
    };
    events.push(
      event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } }),
      event('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: args }),
      event('response.function_call_arguments.done', { item_id: itemId, output_index: 0, arguments: args }),
    );
  }
  events.push(
    event('response.output_item.done', { output_index: 0, item }),
    event('response.completed', {
      response: {
        ...base,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: usage.cached },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    }),
  );
  sse(res, events);
}

function googleAnswer(res: ServerResponse, action: Resolved, model: string, usage: Usage, stream: boolean): void {
  const part =
    action.kind === 'text' ? { text: action.text } : { functionCall: { name: action.name, args: action.input } };
  const answer = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
      cachedContentTokenCount: usage.cached,
    },
    modelVersion: model,
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
    return;
  }
  sse(res, [[null, answer]]);
}

// The vendors' own words for a spent quota (the CLIs may recognise them), as their APIs answer them.
const ANTHROPIC_QUOTA =
  'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';
const OPENAI_QUOTA =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';
const GOOGLE_QUOTA =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';

function errorAnswer(
  vendor: ModelVendor,
  fault: 401 | 429 | 500 | 'overload' | 'quota',
): { status: number; payload: unknown } {
  if (fault === 'quota') return quotaAnswer(vendor);
  const words = {
    401: 'invalid x-api-key (the stub server refuses this key)',
    429: 'rate limit reached (the stub server says so)',
    500: 'internal server error (the stub server says so)',
    overload: 'overloaded (the stub server says so)',
  }[fault];
  if (vendor === 'anthropic') {
    const type = {
      401: 'authentication_error',
      429: 'rate_limit_error',
      500: 'api_error',
      overload: 'overloaded_error',
    }[fault];
    return { status: fault === 'overload' ? 529 : fault, payload: { type: 'error', error: { type, message: words } } };
  }
  if (vendor === 'openai') {
    const type = {
      401: 'invalid_request_error',
      429: 'rate_limit_exceeded',
      500: 'server_error',
      overload: 'server_error',
    }[fault];
    const code = {
      401: 'invalid_api_key',
      429: 'rate_limit_exceeded',
      500: 'server_error',
      overload: 'server_is_overloaded',
    }[fault];
    return {
      status: fault === 'overload' ? 503 : fault,
      payload: { error: { message: words, type, param: null, code } },
    };
  }
  const status = fault === 'overload' ? 503 : fault;
  const statusWord = { 401: 'UNAUTHENTICATED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', overload: 'UNAVAILABLE' }[
    fault
  ];
  return { status, payload: { error: { code: status, message: words, status: statusWord } } };
}

function quotaAnswer(vendor: ModelVendor): { status: number; payload: unknown } {
  if (vendor === 'anthropic')
    return {
      status: 400,
      payload: { type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC_QUOTA } },
    };
  if (vendor === 'openai')
    return {
      status: 429,
      payload: {
        error: { message: OPENAI_QUOTA, type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
      },
    };
  const violation = {
    quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
    quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
    quotaDimensions: { location: 'global', model: 'gemini-2.5-pro' },
    quotaValue: '50',
  };
  return {
    status: 429,
    payload: {
      error: {
        code: 429,
        message: GOOGLE_QUOTA,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [violation] },
          {
            '@type': 'type.googleapis.com/google.rpc.Help',
            links: [
              {
                description: 'Learn more about Gemini API quotas',
                url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
              },
            ],
          },
        ],
      },
    },
  };
}

// Reading what `gemini --output-format json` prints: one pretty-printed object, its stats, its errors.
import type { AgentAnswer, AgentDry, AgentDryKind, AgentRetry, AgentUsage, TokenPrices } from '@leap/core';
import { LeapError, estimateCost, isJsonObject, parseJsonObject, previewText } from '@leap/core';

type Json = Record<string, unknown>;

/** Read `gemini --output-format json` output: one object whose `response` is the answer; `error` throws. */
export function parseGeminiOutput(stdout: string, prices?: TokenPrices): AgentAnswer {
  const object = jsonObject(stdout);
  if (object === null)
    throw new LeapError(
      `gemini: expected a JSON object on stdout (--output-format json), found ${previewText(stdout)}`,
    );
  const error = errorOf(object);
  if (error !== null)
    throw new LeapError(`gemini reported an error (${error.kind}): ${apiErrorSentence(error) ?? error.message}`);
  if (typeof object.response !== 'string') {
    const found = previewText(JSON.stringify(object.response ?? null));
    throw new LeapError(`gemini: expected a string "response", found ${found}`);
  }
  const usage = usageOf(object, prices);
  return usage === null ? { text: object.response } : { text: object.response, usage };
}

/** Summed over `stats.models` (the CLI routes some calls to a smaller model); `model` the one with the most tokens. */
export function parseGeminiUsage(stdout: string, prices?: TokenPrices): AgentUsage | null {
  const object = jsonObject(stdout);
  return object === null ? null : usageOf(object, prices);
}

/** The JSON error's message (on stderr after warnings when it fails), else stderr's last line that says something. */
export function explainGeminiFailure(stdout: string, stderr: string): string | null {
  const error = jsonError(stdout, stderr);
  if (error !== null) return apiErrorSentence(error) ?? error.message;
  const lines = said(stderr);
  const retry = lines.findLast((line) => RETRY_LINE.test(line));
  // Still retrying when ended: its last attempt, as a sentence, rather than the `status: 500` of the stack dump after.
  return retry === undefined ? (lines.at(-1) ?? null) : retrySentence(retry);
}

// `Attempt 3 failed with status 500. Retrying with backoff... _ApiError: {"error":{...}}` (0.61.0), one line per retry.
const RETRY_LINE = /^Attempt (\d+) failed(?: with status (\d+))?\. Retrying with backoff\.\.\.\s*(.*)$/;

function retrySentence(line: string): string {
  const [, attempt, status, rest = ''] = RETRY_LINE.exec(line) as RegExpExecArray;
  const api = apiError(rest.replace(/^[\w$]*Error:\s*/, ''));
  const code = count(api?.code) ?? (status === undefined ? null : Number(status));
  const why = filled(api?.message) ?? rest.trim();
  const what =
    code === null ? `its attempt ${attempt} failed` : `the Gemini API answered HTTP ${code}${statusWord(api)}`;
  return `${what}${why === '' ? '' : `: ${why}`} (attempt ${attempt}; the CLI was retrying)`;
}

/** 0.61.0 prints an HTTP error's JSON body as its message and exits with the status mod 256 (401 -> 145). */
function apiErrorSentence(error: GeminiError): string | null {
  const api = apiError(error.message);
  const status = count(api?.code) ?? count(error.code);
  if (status === null || status < 100 || status > 599) return null;
  const said = filled(api?.message) ?? (api === null ? error.message : JSON.stringify(api).slice(0, 500));
  const exit = `the CLI's exit code ${status % 256} is that status mod 256`;
  return `the Gemini API answered HTTP ${status}${statusWord(api)}: ${said} (${exit})`;
}

// The `error` object of the API's JSON answer, when `body` is one.
function apiError(body: string): Json | null {
  const object = parseJsonObject(body.trim());
  return object !== null && isJsonObject(object.error) ? object.error : null;
}

const filled = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const statusWord = (api: Json | null): string => (filled(api?.status) === null ? '' : ` ${api?.status}`);

/** `fetch failed`, 429 or 503: 0.61.0 retries those 3 to 5 min while another vendor could go; a 500 is not counted. */
export function geminiRetrying(stdout: string, stderr: string): AgentRetry | null {
  if (stdout.trim() !== '' || jsonError(stdout, stderr) !== null) return null;
  const lines = said(stderr);
  const last = lines.at(-1);
  if (last === undefined) return null;
  if (last.includes('fetch failed')) {
    const attempts = lines.filter((line) => /^Attempt \d+ failed/.test(line) && line.includes('fetch failed'));
    return attempts.length === 0 ? null : { attempts: attempts.length, message: attempts.at(-1) as string };
  }
  const at = lines.findLastIndex((line) => RETRY_LINE.test(line));
  // After the attempt only its stack dump's `status: 429`: the CLI is waiting for the next one.
  if (at === -1 || !lines.slice(at + 1).every((line) => /^status: \d+$/.test(line))) return null;
  // The attempts that ran dry, counted back from the last one.
  const retries = lines.slice(0, at + 1).filter((line) => RETRY_LINE.test(line));
  const attempts = retries.length - 1 - retries.findLastIndex((line) => retryDry(line) === null);
  return attempts === 0 ? null : { attempts, message: retrySentence(lines[at] as string) };
}

/** 0.61.0: a TerminalQuotaError is quota (rc 173 at once), a 429 given up rate-limit, a 503 overload; else null. */
export function geminiRanDry(stdout: string, stderr: string): AgentDry | null {
  const error = jsonError(stdout, stderr);
  if (error !== null) {
    const status = count(apiError(error.message)?.code) ?? count(error.code);
    if (status !== 429 && status !== 503) return null;
    const terminal =
      /^Error when talking to Gemini API.*\bTerminalQuotaError\b/m.test(stderr) || QUOTA_WORDS.test(error.message);
    const kind: AgentDryKind = terminal ? 'quota' : status === 429 ? 'rate-limit' : 'overload';
    return { kind, message: apiErrorSentence(error) ?? error.message };
  }
  const line = said(stderr).findLast((l) => RETRY_LINE.test(l));
  const kind = line === undefined ? null : retryDry(line);
  return kind === null ? null : { kind, message: retrySentence(line as string) };
}

// The CLI's own words for a quota no retry helps with (its TerminalQuotaError messages).
const QUOTA_WORDS = /exhausted your (daily )?quota|exhausted your capacity/i;

function retryDry(line: string): AgentDryKind | null {
  const status = RETRY_LINE.exec(line)?.[2];
  return status === '429' ? 'rate-limit' : status === '503' ? 'overload' : null;
}

// The cost estimated from `prices`: Gemini CLI reports none.
function usageOf(object: Json, prices: TokenPrices | undefined): AgentUsage | null {
  const stats = object.stats as { models?: unknown } | undefined;
  if (typeof stats !== 'object' || stats === null) return null;
  const models = isJsonObject(stats.models) ? Object.entries(stats.models) : [];
  let input: number | null = 0;
  let output: number | null = 0;
  let main: { name: string; total: number } | null = null;
  for (const [name, entry] of models) {
    const t = isJsonObject(entry) && isJsonObject(entry.tokens) ? entry.tokens : {};
    const prompt = count(t.prompt);
    const wrote = count(t.candidates);
    input = input === null || prompt === null ? null : input + prompt;
    output = output === null || wrote === null ? null : output + wrote + (count(t.thoughts) ?? 0);
    const total = count(t.total) ?? 0;
    if (main === null || total > main.total) main = { name, total };
  }
  return estimateCost(
    { model: main?.name ?? null, input_tokens: input, output_tokens: output, cost_usd: null },
    prices,
  );
}

const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;

type GeminiError = { kind: string; message: string; code: unknown };

// The JSON error: on stderr after warnings when the run failed, else on stdout.
const jsonError = (stdout: string, stderr: string): GeminiError | null =>
  errorOf(jsonObject(stderr)) ?? errorOf(jsonObject(stdout));

function errorOf(object: Json | null): GeminiError | null {
  const error = object?.error as { type?: unknown; message?: unknown; code?: unknown } | null | undefined;
  if (error === undefined || error === null) return null;
  const message = typeof error.message === 'string' ? error.message : previewText(JSON.stringify(error));
  return { kind: typeof error.type === 'string' ? error.type : 'error', message, code: error.code };
}

// What says nothing: stack frames, Node warnings, start-up notices, the lines of a pretty-printed object.
const NOISE = [
  /^(at |\((node:\d+|Use `node))/,
  /^(YOLO mode is enabled|Approval mode overridden|Warning: 256-color|Ripgrep is not available)/,
  /^Loaded cached credentials/,
  /^([{}[\]],?$|"[\w-]+":)/,
];

// Lines that say something, without colours.
function said(text: string): string[] {
  return text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !NOISE.some((noise) => noise.test(l)));
}

// The whole output, else an object starting on a line of its own after warnings, else the last line that is one.
function jsonObject(text: string): Json | null {
  const lines = text.split('\n');
  const starts = lines.flatMap((line, i) => (line === '{' ? [lines.slice(i).join('\n')] : []));
  for (const candidate of [text, ...starts, ...lines.toReversed()]) {
    const object = parseJsonObject(candidate.trim());
    if (object !== null) return object;
  }
  return null;
}

// Reading what `codex exec --json` prints (JSON Lines events): the answer, the usage, the failure, the retries.
import type { AgentAnswer, AgentDry, AgentDryKind, AgentRetry, AgentUsage, TokenPrices } from '@leap/core';
import { LeapError, estimateCost, parseJsonObject } from '@leap/core';

type CodexEvent = Record<string, unknown>;

/** The last `agent_message`; an `error` event alone does not throw (the CLI's `Reconnecting...` it recovers from). */
export function parseCodexEvents(stdout: string, prices?: TokenPrices): AgentAnswer {
  const events = readEvents(stdout);
  const text = events
    .map((e) => (e.type === 'item.completed' ? (e.item as CodexEvent | undefined) : undefined))
    .findLast((item) => item?.type === 'agent_message' && typeof item.text === 'string')?.text as string | undefined;
  // A failed turn throws; without an answer, so does the last `error` event, else what is missing.
  const error = failureWords(events);
  if (error !== null && (text === undefined || events.some((e) => e.type === 'turn.failed')))
    throw new LeapError(`codex reported an error: ${error}`);
  if (text === undefined) {
    throw new LeapError(
      events.length === 0
        ? 'codex: expected JSON Lines events on stdout (codex exec --json), found none'
        : `codex: no completed agent_message item among ${events.length} events`,
    );
  }
  const usage = usageOf(events, prices);
  return usage === null ? { text } : { text, usage };
}

/** The last `turn.completed` usage (input counts cached tokens); Codex reports no cost and no model. */
export function parseCodexUsage(stdout: string, prices?: TokenPrices): AgentUsage | null {
  const events = readEvents(stdout);
  if (events.length === 0) return null;
  return usageOf(events, prices) ?? { model: null, input_tokens: null, output_tokens: null, cost_usd: null };
}

/** A failed turn, else the last `error` event, else the last line of stderr (or stdout) not a log or warning. */
export function explainCodexFailure(stdout: string, stderr: string): string | null {
  const said = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !LOG_LINE.test(l) && !l.startsWith('{'));
  return failureWords(readEvents(stdout)) ?? said(stderr).at(-1) ?? said(stdout).at(-1) ?? null;
}

// The CLI's tracing lines (`2026-12-01T07:06:33.916394Z ERROR codex_api::...`) and its PATH-alias warning.
const LOG_LINE = /^(\d{4}-\d\d-\d\dT\S+Z\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s|WARNING: proceeding, even though)/;

/** `Reconnecting...` events since the last progress; 0.171.0 retries a refused key five times over ~10 s. */
export function codexRetrying(stdout: string): AgentRetry | null {
  let attempts = 0;
  let message = '';
  for (const event of readEvents(stdout)) {
    if (event.type === 'error' && typeof event.message === 'string' && event.message.startsWith('Reconnecting')) {
      attempts++;
      message = event.message;
    } else if (!(event.type === 'item.completed' && (event.item as { type?: unknown } | undefined)?.type === 'error')) {
      attempts = 0;
    }
  }
  if (attempts === 0) return null;
  // Refused credentials (401, 403) or a spent quota: no retry recovers, so `final`.
  return /unexpected status (401|403)\b/.test(message) || dryKind(message) === 'quota'
    ? { attempts, message, final: true }
    : { attempts, message };
}

/** From the failed turn, else the last `error`; 0.171.0's "high demand" is a 500, a server error, not dry. */
export function codexRanDry(stdout: string, _stderr = ''): AgentDry | null {
  const words = failureWords(readEvents(stdout));
  const kind = words === null ? null : dryKind(words);
  return kind === null ? null : { kind, message: words as string };
}

function dryKind(words: string): AgentDryKind | null {
  if (/Quota exceeded|insufficient_quota|exceeded your current quota/i.test(words)) return 'quota';
  if (/\b429\b|Too Many Requests|rate limit/i.test(words)) return 'rate-limit';
  if (/at capacity|\b503\b|Service Unavailable|overloaded/i.test(words)) return 'overload';
  return null;
}

// The cost estimated from `prices`: Codex reports none.
function usageOf(events: CodexEvent[], prices: TokenPrices | undefined): AgentUsage | null {
  const u = events.findLast((e) => e.type === 'turn.completed' && typeof e.usage === 'object' && e.usage !== null)
    ?.usage as CodexEvent | undefined;
  if (u === undefined) return null;
  const usage = { input_tokens: tokens(u.input_tokens), output_tokens: tokens(u.output_tokens) };
  return estimateCost({ model: null, ...usage, cost_usd: null }, prices);
}

const tokens = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;

// The last failed turn's words, else the last `error` event's.
function failureWords(events: CodexEvent[]): string | null {
  const failed = events.findLast((e) => e.type === 'turn.failed');
  if (failed !== undefined) {
    const error = failed.error as { message?: unknown } | undefined;
    return typeof error?.message === 'string' ? error.message : 'turn failed';
  }
  const error = events.findLast((e) => e.type === 'error' && typeof e.message === 'string');
  return error === undefined ? null : (error.message as string);
}

const readEvents = (stdout: string): CodexEvent[] =>
  stdout.split('\n').flatMap<CodexEvent>((line) => parseJsonObject(line.trim()) ?? []);

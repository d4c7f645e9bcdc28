// Reading what `claude -p --output-format json` prints: the result object, its usage and cost, its errors.
import type { AgentAnswer, AgentDry, AgentDryKind, AgentRetry, AgentUsage } from '@leap/core';
import { LeapError, isJsonObject, parseJsonObject, previewText } from '@leap/core';

/** Read `claude -p --output-format json` output: the final JSON object's `result`; `is_error` throws. */
export function parseClaudeOutput(stdout: string): AgentAnswer {
  const result = lastJsonObject(stdout);
  if (result === null) {
    throw new LeapError(
      `claude: expected a JSON object on stdout (--output-format json), found ${previewText(stdout)}`,
    );
  }
  if (result.is_error === true)
    throw new LeapError(`claude reported an error${subtypeOf(result)}: ${errorWords(result)}`);
  if (typeof result.result !== 'string') {
    const found = previewText(JSON.stringify(result.result ?? null));
    throw new LeapError(`claude: expected a string "result" in the final JSON object, found ${found}`);
  }
  const answer: AgentAnswer = { text: result.result };
  if (result.structured_output !== undefined && result.structured_output !== null)
    answer.json = result.structured_output;
  const usage = usageOf(result);
  if (usage !== null) answer.usage = usage;
  return answer;
}

/** For a failed run too; tokens summed over `modelUsage` (sub-agents included), cache reads and writes as input. */
export function parseClaudeUsage(stdout: string): AgentUsage | null {
  const result = lastJsonObject(stdout);
  return result === null ? null : usageOf(result);
}

/** The error result's text, else stderr, else (a run killed while it retried) its last `api_retry` in words. */
export function explainClaudeFailure(stdout: string, stderr: string): string | null {
  const result = lastJsonObject(stdout);
  if (result !== null && result.is_error === true) return `${errorWords(result)}${subtypeOf(result)}`;
  const words = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
  if (words === '') {
    const retry = lastLine(stdout, isRetry);
    return retry === null ? null : `the last thing Claude Code said: ${retryWords(retry)}`;
  }
  if (/cannot be used with root/.test(words))
    return `${words} (permission mode bypassPermissions as root; the default dontAsk mode runs as root)`;
  return words;
}

/** A retry report that says no retry can succeed: the leaf should end now, not after the retry limit. */
export interface ClaudeRetry extends AgentRetry {
  /** An auth failure (401, 403) or a spent balance (`billing_error`): the same answer comes every time. */
  final?: boolean;
}

/** No status, 429 or 529: 2.1.197 retries those ~3 min while another vendor could go; a 500 waits out its back-off. */
export function claudeRetrying(stdout: string): ClaudeRetry | null {
  const last = lastJsonObject(stdout);
  if (last === null || !isRetry(last)) return null;
  const attempts = typeof last.attempt === 'number' ? last.attempt : 1;
  if (isAuthFailure(last))
    return { attempts, message: `${retryWords(last)}; a refused key is refused again, so the leaf ends`, final: true };
  if (last.error === 'billing_error')
    return { attempts, message: `${retryWords(last)}; a spent balance stays spent, so the leaf ends`, final: true };
  if (last.error_status !== undefined && last.error_status !== null && retryDry(last) === null) return null;
  return { attempts, message: retryWords(last) };
}

/** From the error result, else the last `api_retry`: a low credit balance is quota, 429 rate-limit, 529 overload. */
export function claudeRanDry(stdout: string, _stderr = ''): AgentDry | null {
  const last = lastJsonObject(stdout);
  if (last === null) return null;
  if (last.type === 'result') {
    if (last.is_error !== true) return null;
    // The last assistant line's `error`: Claude Code's name for the API's answer (`billing_error`, `rate_limit`, ...).
    const error = lastLine(stdout, (object) => object.type === 'assistant')?.error;
    const kind = resultDry(last, typeof error === 'string' ? error : null);
    return kind === null ? null : { kind, message: errorWords(last) };
  }
  if (!isRetry(last)) return null;
  const kind = retryDry(last);
  return kind === null ? null : { kind, message: retryWords(last) };
}

// Words of the vendor's spent quota, as Claude Code shows them: a credit balance (`billing_error`), a spend limit.
const QUOTA_WORDS = /credit balance is too low|reached your specified (workspace )?API usage limits/i;

function resultDry(result: Record<string, unknown>, error: string | null): AgentDryKind | null {
  const words = typeof result.result === 'string' ? result.result : '';
  if (error === 'billing_error' || QUOTA_WORDS.test(words)) return 'quota';
  if (error === 'rate_limit' || result.api_error_status === 429) return 'rate-limit';
  if (result.api_error_status === 529 || /Repeated 529 Overloaded errors|\b529\b.*overloaded/i.test(words))
    return 'overload';
  return null;
}

function retryDry(retry: Record<string, unknown>): AgentDryKind | null {
  if (retry.error === 'billing_error') return 'quota';
  if (retry.error_status === 429 || retry.error === 'rate_limit') return 'rate-limit';
  if (retry.error_status === 529 || retry.error === 'overloaded') return 'overload';
  return null;
}

function isAuthFailure(retry: Record<string, unknown>): boolean {
  return retry.error === 'authentication_failed' || retry.error_status === 401 || retry.error_status === 403;
}

// An api_retry event in words: `API retry 2 of 10 (error: authentication_failed, HTTP 401)`.
function retryWords(retry: Record<string, unknown>): string {
  const attempts = typeof retry.attempt === 'number' ? retry.attempt : 1;
  const of = typeof retry.max_retries === 'number' ? ` of ${retry.max_retries}` : '';
  const error = typeof retry.error === 'string' ? retry.error : 'unknown';
  const status = typeof retry.error_status === 'number' ? `, HTTP ${retry.error_status}` : '';
  return `API retry ${attempts}${of} (error: ${error}${status})`;
}

const isRetry = (object: Record<string, unknown>) => object.type === 'system' && object.subtype === 'api_retry';

function usageOf(result: Record<string, unknown>): AgentUsage | null {
  const models = isJsonObject(result.modelUsage)
    ? Object.entries(result.modelUsage).filter((e): e is [string, Record<string, unknown>] => isJsonObject(e[1]))
    : [];
  const usage = isJsonObject(result.usage) ? result.usage : null;
  const cost = count(result.total_cost_usd, false);
  if (models.length === 0 && usage === null && cost === null) return null;
  // Summed over the models, else the top-level usage's; cache reads and writes count as input.
  const counts =
    models.length > 0
      ? models.map(([, m]) => m)
      : [
          {
            inputTokens: usage?.input_tokens,
            cacheReadInputTokens: usage?.cache_read_input_tokens,
            cacheCreationInputTokens: usage?.cache_creation_input_tokens,
            outputTokens: usage?.output_tokens,
          },
        ];
  const input = counts.map((m) =>
    sum([count(m.inputTokens), count(m.cacheReadInputTokens, true, 0), count(m.cacheCreationInputTokens, true, 0)]),
  );
  const output = counts.map((m) => count(m.outputTokens));
  return { model: mainModel(models), input_tokens: sum(input), output_tokens: sum(output), cost_usd: cost };
}

// The model that cost the most (then wrote the most): the session's own, not a helper model it called.
function mainModel(models: [string, Record<string, unknown>][]): string | null {
  let best: { name: string; cost: number; out: number } | null = null;
  for (const [name, m] of models) {
    const candidate = { name, cost: count(m.costUSD, false) ?? 0, out: count(m.outputTokens) ?? 0 };
    if (best === null || candidate.cost > best.cost || (candidate.cost === best.cost && candidate.out > best.out))
      best = candidate;
  }
  return best?.name ?? null;
}

function count(value: unknown, integer = true, fallback: number | null = null): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && (!integer || Number.isInteger(value))
    ? value
    : fallback;
}

// The sum, or null as soon as one part is unknown.
function sum(values: (number | null)[]): number | null {
  let total = 0;
  for (const value of values) {
    if (value === null) return null;
    total += value;
  }
  return total;
}

function errorWords(result: Record<string, unknown>): string {
  if (typeof result.result === 'string' && result.result !== '') return result.result;
  return previewText(JSON.stringify(result));
}

// The result's subtype when it says more than `success` (2.1.197 reports "Not logged in" as subtype success).
function subtypeOf(result: Record<string, unknown>): string {
  return typeof result.subtype === 'string' && result.subtype !== 'success' ? ` (${result.subtype})` : '';
}

// The whole output as one JSON object, else the last line that is one (stream-json ends with the result).
function lastJsonObject(stdout: string): Record<string, unknown> | null {
  return parseJsonObject(stdout.trim()) ?? lastLine(stdout, () => true);
}

// The last line that is a JSON object `match` accepts.
function lastLine(stdout: string, match: (object: Record<string, unknown>) => boolean): Record<string, unknown> | null {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const object = parseJsonObject((lines[i] ?? '').trim());
    if (object !== null && match(object)) return object;
  }
  return null;
}

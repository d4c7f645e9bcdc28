// Reading what `claude -p --output-format json` prints: the result object, its usage and cost, its errors.
import type { AgentAnswer, AgentDry, AgentDryKind, AgentRetry, AgentUsage } from '@leap/core';
import { LeapError, isJsonObject, parseJsonObject, previewText } from '@leap/core';

type Json = Record<string, unknown>;

/** Read `claude -p --output-format json` output: the final JSON object's `result`; `is_error` throws. */
export function parseClaudeOutput(stdout: string): AgentAnswer {
  const result = lastJsonObject(stdout);
  if (result === null)
    throw new LeapError(
      `claude: expected a JSON object on stdout (--output-format json), found ${previewText(stdout)}`,
    );
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
  const words = stderr.trim().replace(/\s*\n\s*/g, ' ');
  if (words === '') {
    const retry = lastLine(stdout, isRetry);
    return retry === null ? null : `the last thing Claude Code said: ${retryWords(retry)}`;
  }
  if (/cannot be used with root/.test(words))
    return `${words} (permission mode bypassPermissions as root; the default dontAsk mode runs as root)`;
  return words;
}

/** No status, 429 or 529: 2.1.197 retries those ~3 min while another vendor could go; a 500 waits out its back-off. */
export function claudeRetrying(stdout: string): AgentRetry | null {
  const last = lastJsonObject(stdout);
  if (last === null || !isRetry(last)) return null;
  const attempts = typeof last.attempt === 'number' ? last.attempt : 1;
  // A refused key or a spent balance gets the same answer every time: `final` ends the leaf now.
  if (last.error === 'authentication_failed' || last.error_status === 401 || last.error_status === 403)
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
  const kind = isRetry(last) ? retryDry(last) : null;
  return kind === null ? null : { kind, message: retryWords(last) };
}

// Words of the vendor's spent quota, as Claude Code shows them: a credit balance (`billing_error`), a spend limit.
const QUOTA_WORDS = /credit balance is too low|reached your specified (workspace )?API usage limits/i;

function resultDry(result: Json, error: string | null): AgentDryKind | null {
  const words = typeof result.result === 'string' ? result.result : '';
  if (error === 'billing_error' || QUOTA_WORDS.test(words)) return 'quota';
  if (error === 'rate_limit' || result.api_error_status === 429) return 'rate-limit';
  if (result.api_error_status === 529 || /Repeated 529 Overloaded errors|\b529\b.*overloaded/i.test(words))
    return 'overload';
  return null;
}

function retryDry(retry: Json): AgentDryKind | null {
  if (retry.error === 'billing_error') return 'quota';
  if (retry.error_status === 429 || retry.error === 'rate_limit') return 'rate-limit';
  if (retry.error_status === 529 || retry.error === 'overloaded') return 'overload';
  return null;
}

// An api_retry event in words: `API retry 2 of 10 (error: authentication_failed, HTTP 401)`.
function retryWords(retry: Json): string {
  const attempts = typeof retry.attempt === 'number' ? retry.attempt : 1;
  const of = typeof retry.max_retries === 'number' ? ` of ${retry.max_retries}` : '';
  const error = typeof retry.error === 'string' ? retry.error : 'unknown';
  const status = typeof retry.error_status === 'number' ? `, HTTP ${retry.error_status}` : '';
  return `API retry ${attempts}${of} (error: ${error}${status})`;
}

const isRetry = (object: Json) => object.type === 'system' && object.subtype === 'api_retry';

// Input, cache reads, cache writes and output: in each model's usage, and in the top-level one.
const MODEL_COUNTS = ['inputTokens', 'cacheReadInputTokens', 'cacheCreationInputTokens', 'outputTokens'];
const USAGE_COUNTS = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'output_tokens'];

function usageOf(result: Json): AgentUsage | null {
  const models = isJsonObject(result.modelUsage)
    ? Object.entries(result.modelUsage).filter((e): e is [string, Json] => isJsonObject(e[1]))
    : [];
  const usage = isJsonObject(result.usage) ? result.usage : null;
  const cost = count(result.total_cost_usd, false);
  if (models.length === 0 && usage === null && cost === null) return null;
  // Summed over the models, else the top-level usage's; cache reads and writes count as input.
  const counts =
    models.length > 0 ? models.map(([, m]) => MODEL_COUNTS.map((k) => m[k])) : [USAGE_COUNTS.map((k) => usage?.[k])];
  const input = counts.map(([fresh, read, wrote]) => sum([count(fresh), count(read) ?? 0, count(wrote) ?? 0]));
  const output = counts.map(([, , , out]) => count(out));
  return { model: mainModel(models), input_tokens: sum(input), output_tokens: sum(output), cost_usd: cost };
}

// The model that cost the most (then wrote the most): the session's own, not a helper model it called.
function mainModel(models: [string, Json][]): string | null {
  const cost = (m: Json) => count(m.costUSD, false) ?? 0;
  const out = (m: Json) => count(m.outputTokens) ?? 0;
  return models.toSorted(([, a], [, b]) => cost(b) - cost(a) || out(b) - out(a))[0]?.[0] ?? null;
}

const count = (value: unknown, integer = true): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && (!integer || Number.isInteger(value))
    ? value
    : null;

// The sum, or null as soon as one part is unknown.
const sum = (values: (number | null)[]): number | null =>
  values.includes(null) ? null : (values as number[]).reduce((total, value) => total + value, 0);

const errorWords = (result: Json): string =>
  typeof result.result === 'string' && result.result !== '' ? result.result : previewText(JSON.stringify(result));

// The result's subtype when it says more than `success` (2.1.197 reports "Not logged in" as subtype success).
const subtypeOf = (result: Json): string =>
  typeof result.subtype === 'string' && result.subtype !== 'success' ? ` (${result.subtype})` : '';

// The whole output as one JSON object, else the last line that is one (stream-json ends with the result).
const lastJsonObject = (stdout: string): Json | null => parseJsonObject(stdout.trim()) ?? lastLine(stdout, () => true);

function lastLine(stdout: string, match: (object: Json) => boolean): Json | null {
  for (const line of stdout.split('\n').reverse()) {
    const object = parseJsonObject(line.trim());
    if (object !== null && match(object)) return object;
  }
  return null;
}

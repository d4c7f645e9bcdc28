// Text from the queue or a worker, free of secrets before it is printed (core's showText makes it one safe line).
import { orElse } from '@leap/core';

// A user name alone is a token over http(s) (https://TOKEN@host/repo.git); over ssh it is just the user.
const tokenUser = (parsed: URL) =>
  parsed.password === '' && parsed.username !== '' && /^https?:$/.test(parsed.protocol);

/** A URL without its password or token (`redis://:***@host:6379`); text that is no URL is returned as it is. */
export function redactUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || (parsed.password === '' && !tokenUser(parsed))) return url;
  if (parsed.password !== '') parsed.password = '***';
  else parsed.username = '***';
  return parsed.toString();
}

/** The secret parts of `urls` (passwords, and user names that stand for a token), for `redact`; none in a non-URL. */
export function secretsOf(...urls: (string | undefined)[]): string[] {
  return urls.flatMap((url) => {
    const parsed = url !== undefined && URL.canParse(url) ? new URL(url) : null;
    const parts = parsed === null ? [] : [parsed.password, tokenUser(parsed) ? parsed.username : ''];
    return parts.filter((p) => p !== '').flatMap((p) => [...new Set([p, orElse(() => decodeURIComponent(p), p)])]);
  });
}

export const redact = (text: string, secrets: readonly string[]): string =>
  secrets.reduce((out, secret) => (secret.length > 0 ? out.replaceAll(secret, '***') : out), text);

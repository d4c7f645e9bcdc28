// Text from the queue or a worker, free of secrets before it is printed (core's showText makes it one safe line).

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
  const out: string[] = [];
  for (const url of urls.filter((u) => u !== undefined)) {
    try {
      const parsed = new URL(url);
      for (const part of [parsed.password, tokenUser(parsed) ? parsed.username : '']) {
        if (part === '') continue;
        out.push(part);
        const decoded = decodeURIComponent(part);
        if (decoded !== part) out.push(decoded);
      }
    } catch {}
  }
  return out;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('***');
  return out;
}

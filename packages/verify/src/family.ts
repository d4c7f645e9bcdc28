// Same vendor, same family (blind-tribunal 3.3): one table for builder and reviewers alike.
const VENDORS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['anthropic', 'claude', 'opus', 'sonnet', 'haiku'],
  openai: ['openai', 'chatgpt', 'gpt', 'codex', 'davinci', 'o1', 'o3', 'o4'],
  google: ['google', 'gemini', 'gemma', 'palm', 'bard', 'deepmind', 'codegemma'],
  meta: ['meta', 'llama', 'codellama'],
  mistral: ['mistral', 'mistralai', 'mixtral', 'codestral', 'devstral', 'magistral', 'ministral', 'pixtral'],
  alibaba: ['alibaba', 'qwen', 'qwq'],
  deepseek: ['deepseek'],
  xai: ['xai', 'grok'],
  microsoft: ['microsoft', 'phi'],
  moonshot: ['moonshot', 'moonshotai', 'kimi'],
  zhipu: ['zhipu', 'zai', 'glm'],
  ibm: ['ibm', 'granite'],
  nvidia: ['nvidia', 'nemotron'],
  cohere: ['cohere', 'command-r', 'command-a'],
  amazon: ['amazon'],
};

const ALIASES: ReadonlyArray<readonly [alias: string, vendor: string]> = Object.entries(VENDORS)
  .flatMap(([vendor, aliases]) => aliases.map((alias) => [alias, vendor] as const))
  // Longest first, so `codegemma` is not read as a shorter alias.
  .sort((a, b) => b[0].length - a[0].length);

/** An alias counts at a segment's start (split at `/`, `:`, `@`, `.`, spaces) before its end, a digit, `-` or `_`. */
export function knownVendor(name: string): string | null {
  for (const segment of name.toLowerCase().split(/[/:@.\s]+/)) {
    const hit = ALIASES.find(([alias]) => segment.startsWith(alias) && /^[0-9_-]?$/.test(segment.charAt(alias.length)));
    if (hit !== undefined) return hit[1];
  }
  return null;
}

export function vendorFamily(name: string): string {
  return knownVendor(name) ?? name.trim().toLowerCase();
}

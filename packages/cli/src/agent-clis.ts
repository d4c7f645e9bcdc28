// The agent CLIs `leap init` looks for on PATH: installed (where), logged in (their own check, else credentials).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '@leap/core';

export interface AgentCli {
  name: string;
  family: string;
  path: string | null;
  /** Logged in: true, false, or null when it cannot be told without a model call. */
  loggedIn: boolean | null;
  why: string;
}

// The variables each CLI reads a key from (space-separated), and the files its login leaves.
type Credentials = { vars: string; files: (home: string, env: NodeJS.ProcessEnv) => string[]; login: string };
const CREDENTIALS: Record<string, Credentials> = {
  claude: {
    vars:
      'ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ' +
      'CLAUDE_CODE_OAUTH_TOKEN CLAUDE_CODE_USE_BEDROCK CLAUDE_CODE_USE_VERTEX',
    files: (home, env) => [join(env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'), '.credentials.json')],
    login: 'run `claude` once and log in with /login, or set ANTHROPIC_API_KEY',
  },
  gemini: {
    vars: 'GEMINI_API_KEY GOOGLE_API_KEY GOOGLE_GENAI_USE_VERTEXAI GOOGLE_GENAI_USE_GCA',
    files: (home) => [join(home, '.gemini', 'oauth_creds.json')],
    login: 'run `gemini` once and sign in, or set GEMINI_API_KEY',
  },
};

export async function findAgentClis(cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<AgentCli[]> {
  const { BUILTIN_AGENTS, checkAgentReady, resolveAgent } = await import('@leap/verify');
  const found: AgentCli[] = [];
  for (const name of BUILTIN_AGENTS) {
    const agent = resolveAgent(name, { file: null, entries: {}, roles: {} });
    const path = findExecutable(name, env.PATH, cwd);
    const add = (loggedIn: boolean | null, why: string) =>
      found.push({ name, family: agent.family, path, loggedIn, why });
    const credentials = CREDENTIALS[name];
    const login = credentials?.login;
    if (path === null) add(false, `${name} is not on PATH`);
    else if (credentials === undefined) {
      // Its plugin has a readiness check of its own (codex login status, with the key setups exec accepts).
      const ready = await checkAgentReady(agent, { role: 'developer', cwd }, env, timeoutMs);
      add(ready.ready, ready.ready ? `${name} login status says it is ready` : ready.failure);
    } else {
      const variable = credentials.vars.split(' ').find((v) => (env[v] ?? '') !== '');
      const file = env.HOME ? credentials.files(env.HOME, env).find((f) => existsSync(f)) : undefined;
      if (variable !== undefined) add(true, `${variable} is set`);
      else if (file !== undefined) add(true, `its login is in ${file}`);
      // macOS keeps the login in the keychain, which cannot be read without asking the user.
      else if (process.platform === 'darwin')
        add(null, `no key set and no credentials file: it may be logged in through the keychain; if not, ${login}`);
      else add(false, `no credentials found: ${login}`);
    }
  }
  return found;
}

/** The developer and the verifier to propose: installed CLIs, logged-in ones first, the verifier of another family. */
export function proposeRoles(clis: AgentCli[]): { developer?: string; verifier?: string } {
  const rank = (c: AgentCli) => (c.loggedIn === true ? 0 : c.loggedIn === null ? 1 : 2);
  const installed = clis.filter((c) => c.path !== null).sort((a, b) => rank(a) - rank(b));
  const developer = installed[0];
  if (developer === undefined) return {};
  const verifier = installed.find((c) => c.family !== developer.family);
  return { developer: developer.name, ...(verifier === undefined ? {} : { verifier: verifier.name }) };
}

export const loginWords = (cli: AgentCli): string =>
  cli.loggedIn === true ? 'logged in' : cli.loggedIn === null ? 'login unknown' : 'not logged in';

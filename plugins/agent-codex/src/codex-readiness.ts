// Whether `codex exec` can authenticate, judged as the CLI itself does, without a model call. `codex login
// status` alone is wrong for API-key setups that exec runs with: it says "Not logged in" (exit 1, 0.171.0)
// for a custom provider whose key is in its `env_key` variable, and for `CODEX_API_KEY`.

/** What the setup says before `codex login status` is asked (see codexSetupReadiness). */
export type CodexSetupReadiness = { ready: boolean | null; why: string };

// The judgement as JavaScript source, so the readiness check runs exactly this text with `node -e` (a
// function's own toString would carry whatever a bundler added to it) and the tests call the same text.
const JUDGE_SOURCE = `(env, configToml, args) => {
  const unquote = (raw) => {
    const text = raw.trim();
    const quoted = /^"((?:[^"\\\\]|\\\\.)*)"|^'([^']*)'/.exec(text);
    if (quoted !== null) return quoted[1] !== undefined ? quoted[1].replace(/\\\\(.)/g, '$1') : quoted[2];
    return text.replace(/\\s+#.*$/, '');
  };
  const top = {};
  const tables = {};
  let table = top;
  for (const line of (configToml ?? '').split('\\n')) {
    const header = /^\\s*\\[\\s*([^\\]]+?)\\s*\\]\\s*(#.*)?$/.exec(line);
    if (header !== null) {
      const name = header[1].split('.').map((part) => unquote(part)).join('.');
      table = tables[name] ??= {};
      continue;
    }
    const pair = /^\\s*([A-Za-z0-9_-]+)\\s*=\\s*(.*)$/.exec(line);
    if (pair !== null) table[pair[1]] = unquote(pair[2]);
  }
  // \`-c model_provider=NAME\` (or \`--config\`) on the command line wins over config.toml, as in the CLI.
  let provider = top.model_provider ?? 'openai';
  for (let i = 0; i < args.length; i++) {
    const value = args[i] === '-c' || args[i] === '--config' ? args[i + 1] : /^--config=(.*)$/.exec(args[i])?.[1];
    const set = value === undefined ? null : /^model_provider\\s*=\\s*(.*)$/.exec(value);
    if (set != null) provider = unquote(set[1]);
  }
  if ((env.CODEX_API_KEY ?? '') !== '') return { ready: true, why: 'CODEX_API_KEY is set' };
  const settings = tables[\`model_providers.\${provider}\`];
  if (settings !== undefined && settings.env_key !== undefined) {
    const key = settings.env_key;
    if ((env[key] ?? '') !== '') return { ready: true, why: \`model provider "\${provider}" reads its key from \${key}, which is set\` };
    return { ready: false, why: \`model provider "\${provider}" (config.toml) reads its key from \${key}, which is not set\` };
  }
  if (settings !== undefined && settings.requires_openai_auth !== 'true') return { ready: true, why: \`model provider "\${provider}" needs no key\` };
  if (settings === undefined && (provider === 'oss' || provider === 'ollama' || provider === 'lmstudio')) return { ready: true, why: \`model provider "\${provider}" is local and needs no key\` };
  return { ready: null, why: \`model provider "\${provider}" signs in with codex login\` };
}`;

/**
 * What the setup says before `codex login status` is asked: ready (true) with why, not ready (false)
 * with why, or null: the provider signs in with an OpenAI login, so `codex login status` decides.
 * CODEX_API_KEY set: ready. The provider (`model_provider` in config.toml, or `-c model_provider=NAME` among
 * `args`) has an `env_key`: ready when that variable is set, else not. A provider table without a key and
 * without `requires_openai_auth = true`, or a local built-in (`oss`, `ollama`, `lmstudio`): ready.
 */
export const codexSetupReadiness = new Function(`return ${JUDGE_SOURCE}`)() as (env: Record<string, string | undefined>, configToml: string | null, args: string[]) => CodexSetupReadiness;

/** The variable that carries the readiness script to `node -e 'eval(process.env.LEAP_CODEX_READINESS)'`. */
export const CODEX_READINESS_VAR = 'LEAP_CODEX_READINESS';

/**
 * The readiness check's script, for `node -e SCRIPT CODEX_BIN ARG...`: exit 0 with the reason when the
 * setup is ready by itself, 1 with the reason when it cannot be, else `CODEX_BIN login status` answers
 * (its output and exit code passed on; 127 `CODEX_BIN was not found`, 126 `... is not executable`).
 */
export const CODEX_READINESS_SCRIPT = `
const { readFileSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { homedir } = require('node:os');
const judge = ${JUDGE_SOURCE};
const [bin, ...args] = process.argv.slice(1);
delete process.env.LEAP_CODEX_READINESS;
let config = null;
try { config = readFileSync(join(process.env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml'), 'utf8'); } catch {}
const { ready, why } = judge(process.env, config, args);
if (ready === true) { console.log('ready: ' + why); process.exit(0); }
if (ready === false) { console.error(why); process.exit(1); }
const status = spawnSync(bin, ['login', 'status'], { stdio: 'inherit' });
// Not installed: said as a supervisor says it, with the shell's codes (127 not found, 126 not executable).
if (status.error && status.error.code === 'EACCES') { console.error(bin + ' is not executable'); process.exit(126); }
if (status.error) { console.error(status.error.code === 'ENOENT' ? bin + ' was not found' : bin + ' login status could not start: ' + status.error.message); process.exit(127); }
process.exit(status.status === null ? 1 : status.status);
`;

// Judged as the CLI does: `codex login status` alone says "Not logged in" for `CODEX_API_KEY` and `env_key` setups.

// Source text: `node -e` runs exactly what the tests call (a function's toString carries what a bundler added).
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
    const pair = /^\\s*([A-Za-z0-9_-]+)\\s*=\\s*(.*)$/.exec(line);
    if (header !== null) table = tables[header[1].split('.').map((part) => unquote(part)).join('.')] ??= {};
    else if (pair !== null) table[pair[1]] = unquote(pair[2]);
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
  const named = \`model provider "\${provider}"\`;
  if (settings !== undefined && settings.env_key !== undefined) {
    const key = settings.env_key;
    if ((env[key] ?? '') !== '') return { ready: true, why: \`\${named} reads its key from \${key}, which is set\` };
    return { ready: false, why: \`\${named} (config.toml) reads its key from \${key}, which is not set\` };
  }
  if (settings !== undefined && settings.requires_openai_auth !== 'true')
    return { ready: true, why: \`\${named} needs no key\` };
  const local = provider === 'oss' || provider === 'ollama' || provider === 'lmstudio';
  if (settings === undefined && local) return { ready: true, why: \`\${named} is local and needs no key\` };
  return { ready: null, why: \`\${named} signs in with codex login\` };
}`;

/** `ready` null: the provider signs in with an OpenAI login, so `codex login status` decides. */
export const codexSetupReadiness = new Function(`return ${JUDGE_SOURCE}`)() as (
  env: Record<string, string | undefined>,
  configToml: string | null,
  args: string[],
) => { ready: boolean | null; why: string };

// Codex 0.171.0 (codex-rs/arg0) makes no sandbox helper when canonical CODEX_HOME is under TMPDIR (else /tmp).
const HELPERS_SOURCE = `(env, codexHome, mode, realpath) => {
  if (mode === 'danger-full-access') return null;
  const temp = env.TMPDIR !== undefined ? env.TMPDIR : '/tmp';
  let home = codexHome;
  try { home = realpath(codexHome); } catch {}
  const parts = (p) => p.split('/').filter((c, i) => c !== '' && c !== '.' || (i === 0 && c === ''));
  const [a, b] = [parts(home), parts(temp)];
  const under = temp === '' || (a[0] === '') === (b[0] === '') && b.length <= a.length && b.every((c, i) => a[i] === c);
  if (!under) return null;
  return 'codex cannot run its own ' + mode + ' sandbox: its CODEX_HOME ' + JSON.stringify(codexHome) +
    ' lies under the temporary folder ' + JSON.stringify(temp) +
    (env.TMPDIR !== undefined ? ' (TMPDIR)' : ' (/tmp, TMPDIR being unset)') +
    ', where Codex CLI refuses to create the helper its sandbox runs every command through, so each command would ' +
    'fail and the run would still end as if it had worked; give CODEX_HOME a folder outside ' +
    JSON.stringify(temp) + ', or point TMPDIR elsewhere';
}`;

/** Why codex's own `mode` sandbox cannot run commands with this CODEX_HOME, or null; `realpath` as the CLI's. */
export const codexSandboxHelpersRefusal = new Function(`return ${HELPERS_SOURCE}`)() as (
  env: Record<string, string | undefined>,
  codexHome: string,
  mode: string,
  realpath: (path: string) => string,
) => string | null;

// What carries the readiness script to `node -e 'eval(process.env.LEAP_CODEX_READINESS)'`, and its leaf's `--sandbox`.
export const CODEX_READINESS_VAR = 'LEAP_CODEX_READINESS';
export const CODEX_SANDBOX_MODE_VAR = 'LEAP_CODEX_SANDBOX';

/** `node -e SCRIPT CODEX_BIN ARG...`: the login, then codex's own sandbox; exit 0, else why (127, 126 as a shell). */
export const CODEX_READINESS_SCRIPT = `
const { readFileSync, realpathSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { homedir } = require('node:os');
const judge = ${JUDGE_SOURCE};
const helpers = ${HELPERS_SOURCE};
const [bin, ...args] = process.argv.slice(1);
const mode = process.env.${CODEX_SANDBOX_MODE_VAR} || 'workspace-write';
delete process.env.LEAP_CODEX_READINESS;
delete process.env.${CODEX_SANDBOX_MODE_VAR};
const codexHome = process.env.CODEX_HOME ? process.env.CODEX_HOME : join(homedir(), '.codex');
let config = null;
try { config = readFileSync(join(codexHome, 'config.toml'), 'utf8'); } catch {}
let { ready, why } = judge(process.env, config, args);
if (ready === false) { console.error(why); process.exit(1); }
if (ready === null) {
  const status = spawnSync(bin, ['login', 'status'], { stdio: 'inherit' });
  // Not installed: said as a supervisor says it, with the shell's codes (127 not found, 126 not executable).
  if (status.error && status.error.code === 'EACCES') { console.error(bin + ' is not executable'); process.exit(126); }
  if (status.error) {
    const failed = ' login status could not start: ' + status.error.message;
    console.error(bin + (status.error.code === 'ENOENT' ? ' was not found' : failed));
    process.exit(127);
  }
  if (status.status !== 0) process.exit(status.status === null ? 1 : status.status);
  why = 'codex login status says so';
}
const refused = helpers(process.env, codexHome, mode, realpathSync);
if (refused !== null) { console.error(refused); process.exit(1); }
console.log('ready: ' + why);
process.exit(0);
`;

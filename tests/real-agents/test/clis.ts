// The real agent CLIs at their pinned versions: installed once into a cache outside the repository
// (`npm install --prefix`, so the lockfile and a plain `npm ci` never see them), each run with a private
// HOME and pointed at the scripted model server on 127.0.0.1 as agent-cli-runs/MODEL-STUB.md says.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ModelServer, TEST_CACHE, npmInstalled } from '@leap/test-utils';

export type CliName = 'claude' | 'codex' | 'gemini';

/** The versions the plugins are checked against; moving one is moving the plugin's README with it. */
export const PINNED: Record<CliName, { pkg: string; version: string; bin: string }> = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

/** The CLIs the tests run: all three, or those `LEAP_TEST_CLIS` names (`claude,gemini`), for working on one. */
export const CLI_NAMES: CliName[] = (['claude', 'codex', 'gemini'] as const).filter((name) =>
  (process.env.LEAP_TEST_CLIS ?? name).split(',').includes(name),
);

/** Where the CLIs and their homes live: the tests' cache, never under the repository or /tmp. */
export const CACHE_ROOT = TEST_CACHE;

const INSTALLER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'install-cli.ts');

/** The folder holding `bin` of the pinned CLI, installed first when it is not there yet (once: later runs reuse it). */
export function installedCli(name: CliName): string {
  const { pkg, version, bin } = PINNED[name];
  const installed = (modules: string): boolean => {
    const manifest = join(modules, ...pkg.split('/'), 'package.json');
    return (
      existsSync(join(modules, '.bin', bin)) &&
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version === version
    );
  };
  const dir = join(CACHE_ROOT, 'agents', `${name}@${version}`);
  if (!installed(join(dir, 'node_modules')) && process.env.LEAP_TEST_CLI_INSTALLING !== dir) {
    // Two test files at a time (tools/uvu.mjs --jobs 2) may both find it missing on a fresh machine, and an install
    // replaces the folder whole: it runs in a child holding a lock of it (flock), and one that waited finds it there.
    mkdirSync(dirname(dir), { recursive: true });
    execFileSync('flock', [`${dir}.lock`, process.execPath, ...process.execArgv, INSTALLER, name], {
      env: { ...process.env, LEAP_TEST_CLI_INSTALLING: dir },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return join(npmInstalled(dir, [`${pkg}@${version}`], installed), '.bin');
}

const homes: string[] = [];

/**
 * A private HOME for one run, under the cache (not /tmp: Codex refuses to set up its sandbox helpers under
 * the temp folder, and every sandboxed command then fails), configured to use `server` and stay quiet.
 */
export function privateHome(
  name: CliName,
  server: ModelServer,
  options: { codexLogin?: boolean; home?: string } = {},
): { home: string; env: Record<string, string> } {
  mkdirSync(join(CACHE_ROOT, 'homes'), { recursive: true });
  // A second CLI may share the first one's HOME (a run with two roles): each keeps its own config in it.
  const home = options.home ?? mkdtempSync(join(CACHE_ROOT, 'homes', `${name}-`));
  if (options.home === undefined) homes.push(home);
  // Every leaf bounded well under the defaults (900 s, idle off): a CLI that hangs on a machine unlike this
  // one (a login prompt, a retry loop against a closed network) fails its test in minutes, with the status.
  const env: Record<string, string> = {
    PATH: `${installedCli(name)}:${process.env.PATH ?? ''}`,
    HOME: home,
    TMPDIR: join(home, 'tmp'),
    VERI_TIMEOUT: '180',
    VERI_IDLE_TIMEOUT: '120',
  };
  mkdirSync(env.TMPDIR!, { recursive: true });
  if (name === 'claude') {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-stub-key',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
  } else if (name === 'codex') {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model_provider = "stub"',
        'check_for_update_on_startup = false',
        '[model_providers.stub]',
        'name = "stub"',
        `base_url = "${server.url}/v1"`,
        'env_key = "STUB_OPENAI_KEY"',
        'wire_api = "responses"',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    Object.assign(env, { CODEX_HOME: codexHome, STUB_OPENAI_KEY: 'sk-stub-key' });
    // `codex login --with-api-key` (the key on stdin): the setup whose `codex login status` says logged in.
    if (options.codexLogin === true)
      execFileSync('codex', ['login', '--with-api-key'], {
        env: { ...process.env, ...env },
        input: 'sk-stub-key\n',
        stdio: ['pipe', 'ignore', 'pipe'],
      });
  } else {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false },
      }),
    );
    Object.assign(env, {
      GOOGLE_GEMINI_BASE_URL: server.url,
      GEMINI_API_KEY: 'stub-key',
      GEMINI_TELEMETRY_ENABLED: 'false',
    });
  }
  return { home, env };
}

/** One HOME for two CLIs, each pointed at its own server: the environment of a run with both (a tdd run's developer and verifier). */
export function sharedHome(
  first: { cli: CliName; server: ModelServer },
  second: { cli: CliName; server: ModelServer },
): Record<string, string> {
  const a = privateHome(first.cli, first.server, { codexLogin: true });
  const b = privateHome(second.cli, second.server, { codexLogin: true, home: a.home });
  return {
    ...a.env,
    ...b.env,
    HOME: a.home,
    PATH: `${installedCli(first.cli)}:${installedCli(second.cli)}:${process.env.PATH ?? ''}`,
  };
}

/** Remove every private HOME made so far. */
export function cleanupHomes(): void {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
}

/** The requests of `server` that reached beyond the script's vendors: there must be none but the known probes. */
export function unknownRequests(server: ModelServer): string[] {
  return server.requests.filter((r) => r.answer === 404).map((r) => `${r.method} ${r.url}`);
}

// A real npm registry on loopback for the tests: Verdaccio, installed into a cache folder outside the
// repository, started with its own config and storage (no uplinks: it answers from what was published
// to it and asks nobody else), a user made through the registry's own adduser call, and an npm
// environment (userconfig, cache, global config) that points every npm call of the test at it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { commandLimitMs, makeTempDir, repoRoot } from '@leap/test-utils';
import { $, type ProcessOutput } from 'zx';

const VERDACCIO_VERSION = '6.8.0';
/** Where the test's own tools live between runs (never inside the repository). */
const cacheRoot = process.env.LEAP_TEST_CACHE ?? join(homedir(), '.cache', 'leap-test');

export function show(what: string, result: ProcessOutput): string {
  const { exitCode, signal, stdout, stderr } = result;
  return `${what}: exit ${exitCode ?? signal}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`;
}

/** zx's `$` in `cwd` with `env`, quiet, killed past commandLimitMs(); `nothrow`: a failure is a result. */
export const sh = (cwd: string, env: NodeJS.ProcessEnv, options: { nothrow?: boolean; input?: string } = {}) =>
  $({ cwd, env, quiet: true, timeout: commandLimitMs(), ...options });

/** The environment of this process without the outer npm's and Nx's variables (npm test sets npm_config_*). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|NX_)/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

/** Verdaccio VERDACCIO_VERSION in CACHE/verdaccio, installed once (node-fetch 2.7.0: 6.8.0 does not install on Node 20 otherwise). */
export async function installVerdaccio(): Promise<string> {
  const dir = join(cacheRoot, 'verdaccio');
  const bin = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const installed = join(dir, 'node_modules', 'verdaccio', 'package.json');
  if (existsSync(bin) && JSON.parse(readFileSync(installed, 'utf8')).version === VERDACCIO_VERSION) return bin;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'leap-test-verdaccio',
        private: true,
        dependencies: { verdaccio: VERDACCIO_VERSION },
        overrides: { 'node-fetch': '2.7.0' },
      },
      null,
      2,
    )}\n`,
  );
  await sh(dir, cleanEnv())`npm install --no-audit --no-fund --ignore-scripts --prefer-offline`;
  return bin;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface Registry {
  url: string;
  /** The test user's token (Bearer). */
  token: string;
  /** npm's environment for this registry: every npm call of the test runs with it. */
  env: NodeJS.ProcessEnv;
  /** Verdaccio's own output so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Start Verdaccio on a free loopback port with a fresh storage folder, make a user, and return npm's environment for it. */
export async function startRegistry(bin: string): Promise<Registry> {
  const home = makeTempDir('leap-registry-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'storage: ./storage',
      'auth:',
      '  htpasswd:',
      '    file: ./htpasswd',
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'web:',
      '  enable: false',
      'max_body_size: 100mb',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--config', join(home, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    {
      cwd: home,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString('utf8')));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString('utf8')));
  const exited = new Promise<void>((resolveExit) => child.on('exit', () => resolveExit()));
  let gone = false;
  void exited.then(() => (gone = true));
  // Ready when it answers its ping; an exit before that is the failure, with its output.
  for (;;) {
    if (gone) throw new Error(`verdaccio exited before it answered:\n${output}`);
    try {
      const ping = await fetch(`${url}-/ping`);
      if (ping.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const user = await fetch(`${url}-/user/org.couchdb.user:leap`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'leap', password: 'leap-test-password', email: 'leap@test.invalid' }),
  });
  const { token } = (await user.json()) as { token?: string };
  if (!user.ok || typeof token !== 'string')
    throw new Error(`verdaccio refused the user: HTTP ${user.status}\n${output}`);
  const npmrc = join(home, 'npmrc');
  const hostPath = url.replace(/^http:/, '');
  writeFileSync(
    npmrc,
    [
      `registry=${url}`,
      `${hostPath}:_authToken=${token}`,
      'audit=false',
      'fund=false',
      'update-notifier=false',
      '',
    ].join('\n'),
  );
  writeFileSync(join(home, 'global-npmrc'), '');
  const env = cleanEnv({
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: join(home, 'global-npmrc'),
    npm_config_registry: url,
    npm_config_cache: join(home, 'npm-cache'),
  });
  return {
    url,
    token,
    env,
    log: () => output,
    stop: async () => {
      if (!gone) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** The third-party packages a production install of the workspace needs (the lockfile's non-dev entries), and `extra`. */
export function thirdPartyPackages(extra: string[]): { name: string; version: string }[] {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dev?: boolean; link?: boolean; name?: string }>;
  };
  const found = new Map<string, { name: string; version: string }>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.includes('node_modules/') || entry.link === true || entry.version === undefined) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (name.startsWith('@leap/')) continue;
    if (entry.dev === true && !extra.includes(name)) continue;
    found.set(`${name}@${entry.version}`, { name, version: entry.version });
  }
  return [...found.values()];
}

/**
 * Publish each third-party package to the registry from its original tarball (fetched by npm from the
 * registry npm is configured with, once, into CACHE/tarballs), so the loopback registry can answer a
 * consumer's whole install.
 */
export async function mirror(registry: Registry, packages: { name: string; version: string }[]): Promise<void> {
  const tarballs = join(cacheRoot, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  const fileOf = (p: { name: string; version: string }) =>
    join(tarballs, `${p.name.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`);
  const missing = packages.filter((p) => !existsSync(fileOf(p)));
  if (missing.length > 0) {
    const scratch = makeTempDir('leap-tarballs-');
    const specs = missing.map((p) => `${p.name}@${p.version}`);
    await sh(scratch, cleanEnv())`npm pack --prefer-offline --pack-destination ${scratch} ${specs}`;
    for (const p of missing) {
      const packed = join(scratch, readdirSync(scratch).find((f) => f === fileOf(p).slice(tarballs.length + 1)) ?? '');
      writeFileSync(fileOf(p), readFileSync(packed));
    }
  }
  // Published through the registry's publish call itself (what npm publish sends), not npm publish:
  // a third-party manifest's own publishConfig.registry would send npm publish elsewhere.
  for (const p of packages) await putTarball(registry, p, fileOf(p));
}

async function putTarball(registry: Registry, p: { name: string; version: string }, file: string): Promise<void> {
  const data = readFileSync(file);
  const entries = (await sh(repoRoot, process.env)`tar -tzf ${file}`).stdout.split('\n');
  const manifestPath = entries.find((e) => /^[^/]+\/package\.json$/.test(e));
  if (manifestPath === undefined) throw new Error(`${file}: no package.json at its top`);
  const manifest = JSON.parse((await sh(repoRoot, process.env)`tar -xzOf ${file} ${manifestPath}`).stdout) as Record<
    string,
    unknown
  >;
  delete manifest.publishConfig;
  const base = `${p.name.replace(/^@[^/]+\//, '')}-${p.version}.tgz`;
  const body = {
    _id: p.name,
    name: p.name,
    'dist-tags': { 'leap-mirror': p.version },
    versions: {
      [p.version]: {
        ...manifest,
        _id: `${p.name}@${p.version}`,
        dist: {
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          tarball: `${registry.url}${p.name}/-/${base}`,
        },
      },
    },
    _attachments: {
      [base]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length },
    },
  };
  const response = await fetch(`${registry.url}${p.name.replace('/', '%2f')}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${registry.token}` },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`publishing ${p.name}@${p.version}: HTTP ${response.status} ${await response.text()}`);
}

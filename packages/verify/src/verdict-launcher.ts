// leap-verdict: run leap-verify with the step title as one argv element and end with its code.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export function verifyBinPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@leap/verify/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  // The manifest names the committed shim bin/NAME.cjs; spawn the bundle it requires, one file less to load.
  return join(dirname(manifest), 'dist', (bin['leap-verify'] as string).replace(/^(\.\/)?(dist\/)?/, ''));
}

/** No shell: every argument stays one element; TERM, INT and HUP are forwarded; a death by signal is 2. */
export function runVerdict(args: readonly string[], verifyBin: string = verifyBinPath()): Promise<number> {
  return new Promise((resolve) => {
    // Loaded on first use: a bundler hoists static imports, and `leap-verify prompt` on a green step never spawns.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, [verifyBin, ...args], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
    for (const s of signals) process.on(s, forward);
    const done = (code: number) => {
      for (const s of signals) process.removeListener(s, forward);
      resolve(code);
    };
    child.on('error', () => done(2));
    child.on('close', (code) => done(code ?? 2));
  });
}

// Run an agent invocation the way a supervisor would: no shell, stdin written, env merged (undefined removes).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentInvocation } from '@leap/core';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface Ran { code: number | null; stdout: string; stderr: string }

export function runInvocation(invocation: AgentInvocation, env: Record<string, string | undefined> = {}, cwd?: string): Promise<Ran> {
  const merged: Record<string, string | undefined> = { ...process.env, PATH: `${fixtures}:${process.env.PATH ?? ''}`, ...env, ...invocation.env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return new Promise((resolve, reject) => {
    const child = spawn(invocation.command, invocation.args, { env: merged as NodeJS.ProcessEnv, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => {});
    child.stdin.end(invocation.stdin ?? '');
  });
}

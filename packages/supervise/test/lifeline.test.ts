// A program that supervises leaves in its own process (the conductor, the slice engine) is killed with SIGKILL:
// its leaves must not run on. Unsandboxed, each leaf runs in a session of its own and always survived; sandboxed,
// bwrap's sandbox survived when the kill came in the few milliseconds before it asked to die with its parent
// (4 of 30 kills here, 2026-12-05). The lifeline ends both, at once, without waiting for a next run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lifelineOf, processesWhoseArgv, waitFor } from '@leap/test-utils';
import { STOP, bin, makeScene } from './helpers.js';

const LIBRARY = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Processes whose argv[0] is `word` (the probe's own, set with `exec -a`). */
const probes = (word: string): number[] => processesWhoseArgv((argv) => argv[0] === word);

/** A program that supervises one leaf in process, as the engine does, and says when the leaf's pid file exists. */
function hostProgram(dir: string): string {
  const file = join(dir, 'host.mjs');
  writeFileSync(
    file,
    [
      `import { supervise } from ${JSON.stringify(LIBRARY)};`,
      'const [name, word, sandboxed] = process.argv.slice(2);',
      "const leaf = supervise({ name, command: 'bash', args: ['-c', `exec -a ${word} sleep 300`], cwd: process.cwd(), env: process.env, sandbox: sandboxed === 'yes' ? { role: 'writer', tree: process.cwd() } : null });",
      "process.stdout.write('started\\n');",
      'await leaf;',
      '',
    ].join('\n'),
  );
  return file;
}

async function killHostAfter(
  repo: string,
  host: string,
  env: NodeJS.ProcessEnv,
  name: string,
  sandboxed: boolean,
  delayMs: number,
): Promise<string> {
  const word = `leap-lifeline-probe-${name}`;
  const child = spawn(process.execPath, [host, name, word, sandboxed ? 'yes' : 'no'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return word;
}

for (const sandboxed of [false, true]) {
  test(`a SIGKILLed program's ${sandboxed ? 'sandboxed' : 'unsandboxed'} leaves are ended by its lifeline, whenever the kill comes`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'leap-lifeline-'));
    const { repo, env } = makeScene();
    try {
      const host = hostProgram(root);
      const words: string[] = [];
      // From before the leaf's spawn to well after it (a sandbox sets itself up in about 10-20 ms here).
      for (const [i, delay] of [0, 2, 5, 8, 12, 20, 40, 300].entries())
        words.push(await killHostAfter(repo, host, env, `k${i}`, sandboxed, delay));
      // Each lifeline sweeps within a Node start and a /proc scan of its own.
      await waitFor(() => words.every((w) => probes(w).length === 0), 15_000).catch(() => {});
      const left = words.filter((w) => probes(w).length > 0);
      for (const w of left) for (const pid of probes(w)) process.kill(pid, 'SIGKILL');
      assert.equal(left, [], `leaves left running by a SIGKILLed supervisor: ${left.join(', ')}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(repo, { recursive: true, force: true });
    }
  });
}

test('a program that ends normally leaves no lifeline behind and runs no sweep', async () => {
  const root = mkdtempSync(join(tmpdir(), 'leap-lifeline-'));
  const { repo, env } = makeScene();
  try {
    const file = join(root, 'quick.mjs');
    writeFileSync(
      file,
      `import { supervise } from ${JSON.stringify(LIBRARY)};\nconst r = await supervise({ name: 'quick', command: 'true', cwd: process.cwd(), env: process.env });\nprocess.stdout.write(String(process.pid) + ' ' + r.status + '\\n');\n`,
    );
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [file], { cwd: repo, env, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
      });
      child.once('exit', () => resolve(text));
    });
    const [pid, status] = out.trim().split(' ');
    assert.is(status, 'exited');
    // The lifeline is `sh -c ... leap-lifeline NODE leap-stop orphans PID`: nothing of it may outlive the program.
    await waitFor(() => lifelineOf(Number(pid)).length === 0, 3000).catch(() => {});
    assert.equal(lifelineOf(Number(pid)), [], 'the lifeline of a program that ended normally is gone');
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
});

test('leap-stop orphans refuses a living supervisor, checks its arguments, and says what it ended', async () => {
  const scene = makeScene();
  const alive = await bin(STOP, scene, ['orphans', String(process.pid)]);
  assert.is(alive.code, 1, alive.stderr);
  assert.match(alive.stderr, `supervisor ${process.pid} is alive`);
  for (const bad of [[], ['0'], ['12x'], ['-3']]) {
    const r = await bin(STOP, scene, ['orphans', ...bad]);
    assert.is(r.code, 125, `${JSON.stringify(bad)}: ${r.stderr}`);
  }
  const badLines = await bin(STOP, scene, ['orphans', '999999999', '--lines', '"/tmp"\nnot json']);
  assert.is(badLines.code, 125);
  assert.match(badLines.stderr, '--lines line 2');
  // A pid no process has: nothing of its is left in the state folder, so nothing is ended.
  const none = await bin(STOP, scene, ['--json', 'orphans', '999999999']);
  assert.is(none.code, 0, none.stderr);
  assert.equal(JSON.parse(none.stdout), { action: 'orphans', leaves: [], killed: 0 });
});

test.run();

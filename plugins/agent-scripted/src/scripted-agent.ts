// The scripted agent plugin: launches the replay bin on a script file, for tests and the demo.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { type AgentDry, type AgentPlugin, LeapError } from '@leap/core';
import { scriptStateDir } from './replay-move.js';
import { DRY_LINE } from './replay.js';
import { readScript } from './script-file.js';

export interface ScriptedAgentConfig {
  name?: string;
  /** The script file (see README); relative paths resolve against the current folder. */
  script: string;
  /** The family it stands for; else the script's `family`; else `scripted`. */
  family?: string;
}

/** The replay executable, found through this package's own location so a bundle that inlines it still finds it. */
export function scriptedAgentBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@leap/agent-scripted/package.json')), 'dist', 'bin', 'leap-scripted-agent.cjs');
}

/** Build a scripted agent: each launch runs `node leap-scripted-agent.cjs SCRIPT` with the prompt on stdin. */
export function createScriptedAgent(config: ScriptedAgentConfig): AgentPlugin {
  const script = resolve(config.script);
  const family = config.family ?? readScript(script).family ?? 'scripted';
  const bin = scriptedAgentBin();
  return {
    name: config.name ?? 'scripted',
    family,
    buildInvocation: (prompt, options) => ({
      command: process.execPath,
      args: [bin, script],
      stdin: prompt,
      env: { LEAP_AGENT_ROLE: options.role },
    }),
    // The answer is stdout trimmed; an empty one is no answer (a move without one).
    parseAnswer: (stdout) => {
      const text = stdout.trim();
      if (text === '') throw new LeapError('the scripted agent printed nothing on stdout');
      return { text };
    },
    ranDry: scriptedDry,
    // Inside a sandbox its claims (SCRIPT.state/) are its own state, as a CLI's config folder is: read-write.
    sandbox: () => {
      mkdirSync(scriptStateDir(script), { recursive: true });
      return { agentPaths: [scriptStateDir(script)] };
    },
  };
}

/** A `dry` move's end: its kind from the replay's last line, its words the move's own stderr before it. */
function scriptedDry(_stdout: string, stderr: string): AgentDry | null {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const last = lines.at(-1) ?? '';
  if (!last.startsWith(DRY_LINE)) return null;
  const kind = last.slice(DRY_LINE.length).trim();
  if (kind !== 'quota' && kind !== 'rate-limit' && kind !== 'overload') return null;
  const words = lines.slice(0, -1).join(' ').trim();
  return { kind, message: words === '' ? `the scripted vendor ran dry (${kind})` : words };
}

// What an agent CLI said when it failed by itself, in its own words, for the bail's narration.
import type { AgentPlugin } from '@leap/core';

const MAX = 600;

/** Its plugin's explanation (never raw stream-json), else its answer text if it parses, else its last lines. */
export function agentWords(agent: AgentPlugin, stdout: string, stderr: string): string {
  const explained = agent.explainFailure?.(stdout, stderr)?.trim() ?? '';
  const notSupervisor = stderr.split('\n').filter((l) => !/^supervise\[/.test(l));
  const err = lastLines(notSupervisor.join('\n'));
  const words = explained || [outWords(agent, stdout), err].filter((w) => w !== '').join('\n');
  return words.length > MAX ? `${words.slice(0, MAX)}…` : words;
}

function outWords(agent: AgentPlugin, stdout: string): string {
  try {
    return agent.parseAnswer(stdout).text.trim();
  } catch {
    return jsonWords(stdout) ?? lastLines(stdout);
  }
}

// A JSON result line the plugin takes as no answer (claude's `is_error`): its `result`, `error` or `message`.
function jsonWords(stdout: string): string | null {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  if (!last.startsWith('{')) return null;
  try {
    const data = JSON.parse(last) as Record<string, unknown>;
    const words = [data.result, data.error, data.message].find(
      (w): w is string => typeof w === 'string' && w.trim() !== '',
    );
    return words?.trim() ?? null;
  } catch {
    return null;
  }
}

function lastLines(text: string, count = 4): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-count)
    .join('\n');
}

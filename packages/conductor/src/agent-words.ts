// What an agent CLI said when it failed by itself, in its own words, for the bail's narration.
import type { AgentPlugin } from '@leap/core';

const MAX = 600;

/** The CLI's own words: its answer text when its output still parses (claude reports "Not logged in" so), else its last lines. */
export function agentWords(agent: AgentPlugin, stdout: string, stderr: string): string {
  const said: string[] = [];
  try {
    const text = agent.parseAnswer(stdout).text.trim();
    if (text !== '') said.push(text);
  } catch {
    const out = lastLines(stdout);
    if (out !== '') said.push(out);
  }
  const err = lastLines(stderr.split('\n').filter((l) => !/^supervise\[/.test(l)).join('\n'));
  if (err !== '') said.push(err);
  const words = said.join('\n');
  return words.length > MAX ? `${words.slice(0, MAX)}…` : words;
}

function lastLines(text: string, count = 4): string {
  return text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '').slice(-count).join('\n');
}

import { existsSync, readFileSync } from 'node:fs';
import { UsageError, runCli, writeFd } from '@leap/core';
import { replayNextMove } from '../replay.js';

const USAGE = `Usage: leap-scripted-agent SCRIPT
Replays the next unclaimed move of the JSON script SCRIPT: records the prompt read on stdin under
SCRIPT.state/, applies the move's file edits in the current folder (and its commit), waits sleep_ms
and until the file SCRIPT.state/WAIT_FOR exists,
prints its answer on stdout and its stderr text on stderr, and exits with its exit code.
Exit codes: the move's "exit" (default 0); 3 no move left; 2 a malformed script or bad usage.`;

void runCli('leap-scripted-agent', async () => {
  const args = process.argv.slice(2);
  if (args[0] === '--help' || args[0] === '-h') return (writeFd(1, `${USAGE}\n`), 0);
  if (args.length !== 1 || args[0] === '')
    throw new UsageError(`Expected exactly one argument, the script file, got ${args.length}\n${USAGE}`);
  // TERM held from the start, not the claim (one between ended hanging moves): a hanging move ignores it, others end.
  let termed = false;
  const holdTerm = () => (termed = true);
  process.on('SIGTERM', holdTerm);
  const prompt = readFileSync(0, 'utf8');
  const result = replayNextMove(args[0] as string, prompt, process.cwd());
  if (result.hang) {
    // A stuck agent: ignores TERM and never answers, so only a KILL ends it.
    setInterval(() => {}, 1 << 30);
    return new Promise<number>(() => {});
  }
  process.off('SIGTERM', holdTerm);
  if (termed) process.kill(process.pid, 'SIGTERM');
  if (result.sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, result.sleepMs));
  while (result.waitFor !== null && !existsSync(result.waitFor)) await new Promise((go) => setTimeout(go, 20));
  writeFd(1, result.stdout);
  writeFd(2, result.stderr);
  return result.code;
});

// `leap tdd status`, read from the run's files; light on purpose: node built-ins and @leap/core only.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  isProcessAlive,
  orElse,
  parseKeyValues,
  readFileIfExists,
  readLockHolder,
  readStopRequest,
  readTail,
  resolveStateDir,
  statePaths,
} from '@leap/core';
import { parseLedger } from '@leap/core/ledger';
import { readJournal } from './run-files.js';

export interface TddStatus {
  issue: number;
  steps: { title: string; state: 'todo' | 'refactor-pending' | 'done' }[];
  done: number;
  /** The step in flight and where in it the conductor last recorded the run. */
  current: { index: number; step: string; phase: string | null; attempt: number | null; stage: string | null } | null;
  conductor: { pid: number } | null;
  running: { leaf: string; pid: number; elapsedMs: number }[];
  lastVerdict: { step: string | null; phase: string; verdict: string; reason: string } | null;
  stop: string | null;
  /** How the run last ended when it bailed and nothing was launched since: its cause, class and narration. */
  bail: { cause: string; class: string; message: string } | null;
  /** How the run last ended when it stopped (by request, or `signal`) and nothing was launched since. */
  stopped: { mode: string; at: string; step: string | null } | null;
}

const TAIL_BYTES = 256 * 1024;

export function readTddStatus(options: { cwd: string; env: NodeJS.ProcessEnv; issue?: number }): TddStatus[] {
  const paths = statePaths(resolveStateDir(options.env, options.cwd));
  const ledgers = folderNames(paths.dir).flatMap((n) => /^issue-([1-9][0-9]*)\.md$/.exec(n)?.[1] ?? []);
  const issues = options.issue !== undefined ? [options.issue] : ledgers.map(Number).sort((a, b) => a - b);
  const stopRequest = readStopRequest(paths.stop);
  const stop =
    stopRequest.kind === 'requested' ? stopRequest.mode : stopRequest.kind === 'unreadable' ? 'unreadable' : null;
  const running = runningLeaves(paths.dir);
  const { verdicts, ends } = tailEvents(paths.events);
  return issues.map((issue) => {
    const text = readFileIfExists(paths.ledger(issue));
    const steps =
      text === null
        ? []
        : parseLedger(text, paths.ledger(issue)).steps.map((s) => ({ title: s.title, state: s.state }));
    const pending = steps.findIndex((s) => s.state === 'refactor-pending');
    const inFlight = pending >= 0 ? pending : steps.findIndex((s) => s.state === 'todo');
    const journal = readJournal(paths, issue);
    const holder = readLockHolder(paths.conductorLock(issue));
    const step = inFlight >= 0 ? steps[inFlight] : undefined;
    const at = journal !== null && step !== undefined && journal.step === step.title ? journal : null;
    const where = { phase: at?.phase ?? null, attempt: at?.attempt ?? null, stage: at?.stage ?? null };
    return {
      issue,
      steps,
      done: steps.filter((s) => s.state === 'done').length,
      current: step === undefined ? null : { index: inFlight + 1, step: step.title, ...where },
      conductor: holder !== null && Number.isInteger(holder.pid) && isProcessAlive(holder) ? { pid: holder.pid } : null,
      running,
      lastVerdict: verdicts.filter((v) => v.issue === issue).at(-1) ?? null,
      stop,
      bail: ends.get(issue)?.bail ?? null,
      stopped: ends.get(issue)?.stopped ?? null,
    };
  });
}

export const folderNames = (dir: string): string[] => orElse(() => readdirSync(dir), []);

function runningLeaves(dir: string): TddStatus['running'] {
  const names = folderNames(dir);
  const out: TddStatus['running'] = [];
  for (const name of names) {
    if (!name.endsWith('.pid') || name.startsWith('issue-')) continue;
    const leaf = name.slice(0, -4);
    if (names.includes(`${leaf}.exit`)) continue;
    const text = readFileIfExists(join(dir, name));
    if (text === null || text === '') continue;
    const { first, values } = parseKeyValues(text);
    const pid = Number(first.trim());
    if (!Number.isInteger(pid) || !isProcessAlive({ pid, starttime: values.starttime, bootId: values.boot_id }))
      continue;
    const since = statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs;
    if (since === undefined) continue;
    const elapsedMs = Math.max(0, Math.round(Date.now() - since));
    out.push({ leaf, pid: values.leaf === undefined ? pid : Number(values.leaf), elapsedMs });
  }
  return out;
}

type Verdict = { issue: number | null; step: string | null; phase: string; verdict: string; reason: string };
type End = { bail?: TddStatus['bail']; stopped?: TddStatus['stopped'] };
type Entry = Verdict & Record<'ts' | 'cause' | 'class' | 'message' | 'action', string> & { mode: string | null };

// Verdicts in the log's tail, and each issue's end (a bail, a stop honoured) when no leaf was launched after it.
function tailEvents(file: string): { verdicts: Verdict[]; ends: Map<number, End> } {
  const ends = new Map<number, End>();
  const found: Verdict[] = [];
  for (const line of readTail(file, TAIL_BYTES).split('\n')) {
    const kind = /"event":"(verdict|bail|launch|stop)"/.exec(line)?.[1];
    if (kind === undefined) continue;
    const e = orElse(() => JSON.parse(line) as Entry, null); // null: a torn or partial first line
    if (e === null) continue;
    if (kind === 'verdict')
      found.push({ issue: e.issue, step: e.step, phase: e.phase, verdict: e.verdict, reason: e.reason });
    if (e.issue === null || kind === 'verdict') continue;
    if (kind === 'bail') ends.set(e.issue, { bail: { cause: e.cause, class: e.class, message: e.message } });
    else if (kind === 'launch') ends.delete(e.issue);
    // A stop honoured without a mode is the conductor ending on a signal.
    else if (e.action === 'honoured')
      ends.set(e.issue, { stopped: { mode: e.mode ?? 'signal', at: e.ts, step: e.step } });
  }
  return { verdicts: found, ends };
}

const seconds = (ms: number): string =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

export function formatTddStatus(statuses: readonly TddStatus[]): string {
  if (statuses.length === 0) return 'no runs: no ledger in the state folder (start one with leap tdd run --issue N)\n';
  const blocks = statuses.map((s) => {
    const lines: string[] = [];
    const { current: c, lastVerdict: v } = s;
    if (s.steps.length === 0) lines.push(`issue ${s.issue}: no ledger yet`);
    else if (c === null) lines.push(`issue ${s.issue}: done, ${s.done}/${s.steps.length} steps`);
    else {
      const phase = c.phase === null ? '' : `, ${c.phase} attempt ${c.attempt} (${c.stage})`;
      lines.push(
        `issue ${s.issue}: step ${c.index}/${s.steps.length} ${JSON.stringify(c.step)}${phase}; ${s.done} done`,
      );
    }
    lines.push(`  conductor: ${s.conductor === null ? 'not running' : `running, pid ${s.conductor.pid}`}`);
    for (const r of s.running) lines.push(`  running: ${r.leaf} (pid ${r.pid}) for ${seconds(r.elapsedMs)}`);
    if (v !== null) lines.push(`  last verdict: ${v.phase} ${v.verdict}: ${v.reason.split('\n')[0]}`);
    if (s.stop !== null) lines.push(`  stop pending: ${s.stop}`);
    if (s.bail !== null) lines.push(`  bailed: ${s.bail.cause} (${s.bail.class}): ${s.bail.message.split('\n')[0]}`);
    if (s.stopped !== null) {
      const where = s.stopped.step === null ? '' : ` in ${JSON.stringify(s.stopped.step)}`;
      lines.push(`  stopped: ${s.stopped.mode}${where} at ${s.stopped.at}; leap tdd run --issue ${s.issue} resumes it`);
    }
    return lines.join('\n');
  });
  return `${blocks.join('\n')}\n`;
}

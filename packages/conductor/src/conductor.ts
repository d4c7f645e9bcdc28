// A run's contexts and journal (its ends: run-ends.ts); a killed run resumes: docs/decisions/conductor-resume.md.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { appendEvent, createEvent, readStopRequest, statePaths } from '@leap/core';
import type { EventContext, StatePaths, TrackerIssue, TrackerPlugin } from '@leap/core';
import { parseLedger } from '@leap/core/ledger';
import type { SandboxChoice } from '@leap/verify';
import { Stopped } from './bail-causes.js';
import { createGit, type Git } from './git.js';
import { HeadCache } from './head-cache.js';
import type { Phase } from './prompts.js';
import { readJournal, writeJournal, type PinCheck, type RunJournal } from './run-files.js';
import type { DryAgents, RunAgents } from './run-agents.js';
import type { RecordedOptions } from './run-options.js';

export interface ConductorSetup {
  root: string;
  issue: number;
  stateDir: string;
  /** As given; once preflight pins the run, what it starts reads RunBase's `env`. */
  readonly env: NodeJS.ProcessEnv;
  tracker: TrackerPlugin;
  issueData: TrackerIssue;
  agents: RunAgents;
  revisions: number;
  planText: { text: string; file: string } | null;
  progress: (line: string) => void;
  warn: (line: string) => void;
  deadConductor: number | null;
  recorded: RecordedOptions;
  testGlobs: RegExp[];
  /** leap.config.json's values under `recorded`: what the run goes by. */
  effective: RecordedOptions;
  sources: Partial<Record<keyof RecordedOptions, string>>;
  replaced: string[];
  sandbox: SandboxChoice;
  pin: PinCheck;
}

/** What a run knows before preflight; read-only, as are the contexts after (docs/decisions/conductor-run-state.md). */
export class RunBase {
  readonly paths: StatePaths;
  readonly branch: string;
  readonly issue: number;
  readonly root: string;
  readonly ledgerFile: string;
  readonly ledgerRel: string;

  /** Until preflight pins the run, `skillCommit` (its events') is '' and `env` (all it starts, calls) the setup's. */
  constructor(
    readonly setup: ConductorSetup,
    readonly skillCommit = '',
    readonly env: NodeJS.ProcessEnv = setup.env,
  ) {
    this.paths = statePaths(setup.stateDir);
    this.branch = `leap/issue-${setup.issue}`;
    this.issue = setup.issue;
    this.root = setup.root;
    this.ledgerFile = this.paths.ledger(setup.issue);
    this.ledgerRel = relative(setup.root, this.ledgerFile);
  }

  context(step: string | null): EventContext {
    return { issue: this.issue, step, skillCommit: this.skillCommit === '' ? null : this.skillCommit };
  }

  async say(text: string): Promise<void> {
    this.setup.progress(text);
    try {
      await this.setup.tracker.comment(this.issue, text);
    } catch (error) {
      this.setup.progress(`(could not comment on issue ${this.issue}: ${(error as Error).message})`);
    }
  }

  event(
    kind: 'bail' | 'stop' | 'mark' | 'tick' | 'fallover' | 'verdict',
    fields: Record<string, unknown>,
    step: string | null,
  ): void {
    appendEvent(this.paths.events, createEvent(kind as 'mark', fields as never, this.context(step)));
  }

  /** The issue file's path in the repository, or null when the tracker keeps it elsewhere (a remote issue). */
  issueFileRel(): string | null {
    const file = this.setup.tracker.issueFile?.(this.issue) ?? null;
    const rel = file === null ? null : relative(this.root, file);
    return rel === null || rel.startsWith('..') ? null : rel;
  }

  async tickCriteria(due: (criterion: number) => boolean, step: string | null): Promise<void> {
    const { tracker } = this.setup;
    for (const c of (await tracker.readIssue(this.issue)).criteria) {
      if (c.checked || !due(c.index)) continue;
      await tracker.tickCriterion(this.issue, c.index);
      this.event('tick', { action: 'tick-criterion', title: c.text, criterion: c.index }, step);
      await this.say(`criterion ${c.index} ticked: ${c.text}`);
    }
  }

  readLedger(): ReturnType<typeof parseLedger> {
    return parseLedger(readFileSync(this.ledgerFile, 'utf8'), this.ledgerFile);
  }

  /** Read the stop file before a launch: at-leaf and now stop here; at-ledger (or an unreadable one) lets it run. */
  async checkStop(where: string): Promise<void> {
    const stop = readStopRequest(this.paths.stop);
    if (stop.kind === 'requested' && stop.mode !== 'at-ledger') throw new Stopped(stop.mode, where);
  }

  /** At a step boundary any pending stop ends the run; an unreadable request is read as at-ledger. */
  async checkBoundary(where: string): Promise<void> {
    const stop = readStopRequest(this.paths.stop);
    if (stop.kind === 'requested') throw new Stopped(stop.mode, where);
    if (stop.kind === 'unreadable') {
      await this.say(
        `The stop request is unreadable (${stop.reason}); someone wanted this run to stop, ` +
          'so it stops as at-ledger would.',
      );
      throw new Stopped('unreadable', where);
    }
  }
}

export async function openRunGit(root: string, env: NodeJS.ProcessEnv): Promise<{ git: Git; heads: HeadCache }> {
  let git: Git | null = null;
  const heads = new HeadCache(root, env, () => (git as Git).out(['log', '-1', '--format=%H%x00%s']));
  git = await createGit(root, env, (args) => heads.beforeGit(args));
  return { git, heads };
}

export class Preflighted extends RunBase {
  readonly git: Git;
  readonly heads: HeadCache;
  readonly testCmd: string;

  constructor(setup: ConductorSetup, learned: Pick<Preflighted, 'git' | 'heads' | 'testCmd' | 'skillCommit' | 'env'>) {
    super(setup, learned.skillCommit, learned.env);
    this.git = learned.git;
    this.heads = learned.heads;
    this.testCmd = learned.testCmd;
  }
}

/** The read-only context every phase is given; what a run gathers is returned, its journal is `RunProgress`. */
export class RunContext extends Preflighted {
  readonly dry: DryAgents = new Map();

  constructor(
    pre: Preflighted,
    readonly startHead: string,
  ) {
    super(pre.setup, pre);
  }
}

/** The journal, the one mutable object handed down: persisted, not returned, so a killed run resumes from it. */
export class RunProgress {
  journal: RunJournal;

  constructor(
    private readonly paths: StatePaths,
    private readonly issue: number,
  ) {
    this.journal = readJournal(paths, issue) ?? freshJournal(null, '');
  }

  saveJournal(): void {
    writeJournal(this.paths, this.issue, this.journal);
  }
}

export function freshJournal(
  journalBase: RunJournal | null,
  testCmd: string,
  fields: Partial<RunJournal> = {},
): RunJournal {
  return {
    version: 1,
    pid: process.pid,
    base: journalBase?.base ?? null,
    test_cmd: testCmd,
    ...(journalBase?.options === undefined ? {} : { options: journalBase.options }),
    step: null,
    phase: null,
    attempt: 1,
    stage: 'ready',
    leaf: null,
    tree: null,
    phase_base: null,
    reason: null,
    retried: 0,
    ...fields,
  };
}

export function developLeafName(phase: Phase, attempt: number): string {
  return attempt === 1 ? `develop-${phase}` : `develop-${phase}-${attempt}`;
}

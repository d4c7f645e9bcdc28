// One run: waves and jobs, each ball's rounds (no fifth), holds, resume, merges in plan order, the aggregate jury.
import { planWaves } from '../definition/index.js';
import type { Ball, Receipt, Slice } from '../definition/slice-schema.js';
import { AgentsLedger, type RunAgents } from './agents.js';
import { ballBranch, blockBall, finishBall, holdBall, type RecordsContext } from './ball-records.js';
import { recordFallover, recordRound, resumeBalls } from './ball-records.js';
import type { CostMeter } from './cost.js';
import { isAncestor, resolveCommit } from './git.js';
import { aggregateSpine, builtBy, keptBuilderFamilies, mergeReady, mergeStart, spineBranch } from './integrate.js';
import type { MergeState } from './integrate.js';
import { renderBuilderPrompt } from './prompt.js';
import { buildProvenance } from './provenance.js';
import { readRecord, readRounds, retireRecord, writeRecord, type JurySummary, type ProofRun } from './records.js';
import type { EngineLog, Fallover, ResultRecord, RoundRecord, RunRecord, SlicePaths } from './records.js';
import type { RoundRequest, RoundResult, SliceRunner } from './records.js';
import { freshProgress, nextMove, passedIds, progressOf, type BallProgress } from './scheduler.js';

/** `stopped`: why the run was stopped (a signal), else null; `spineTip`: as the run starts (its only writer). */
export interface EngineContext {
  slice: Slice;
  run: RunRecord;
  repoRoot: string;
  paths: SlicePaths;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  agents: RunAgents;
  runner: SliceRunner;
  log: EngineLog;
  say: (line: string) => void;
  jobs: number;
  timeoutMs: number;
  meter: CostMeter;
  stopped: () => string | null;
  file: string;
  spineTip: string;
  authors: string[];
}

export class Engine {
  private readonly states: Map<string, BallProgress>;
  private readonly order: string[];
  private readonly ledger: AgentsLedger;
  private merging: MergeState;
  private integrating: Promise<void> = Promise.resolve();
  private readonly records: RecordsContext;

  constructor(private readonly c: Readonly<EngineContext>) {
    const waves = planWaves(c.slice);
    this.order = waves.flat();
    this.states = freshProgress(c.slice.balls, waves);
    this.records = { slice: c.slice, file: c.file, base: c.run.base, paths: c.paths, log: c.log, say: c.say };
    this.ledger = new AgentsLedger({ builders: c.agents.builders, say: c.say });
    this.merging = { cursor: 0, spineTip: c.spineTip };
  }

  async run(started: number) {
    const { c } = this;
    const waves = new Set([...this.states.values()].map((s) => s.wave)).size;
    const plan = `${this.order.length} ball(s) in ${waves} wave(s)`;
    const builders = c.agents.builders.map((b) => `${b.name} (${b.family})`).join(', then ');
    c.say(`slice ${c.slice.id}: base ${c.run.base.slice(0, 12)}, ${plan}, --jobs ${c.jobs}, builder ${builders}`);
    const input = { repo: c.repoRoot, slice: c.slice.id, paths: c.paths, spineTip: this.merging.spineTip, say: c.say };
    const { found, reopened } = await resumeBalls(input, this.order, this.states);
    for (const [id, resumed] of found) Object.assign(progressOf(this.states, id), resumed);
    // A passed ball was reopened: the slice's earlier record no longer holds.
    if (reopened) retireRecord(c.paths);
    await this.schedule();
    await this.integrating;
    await this.integrate();
    const balls = this.order.map((id) => {
      const { wave, reused, result } = progressOf(this.states, id);
      const { receipt, reason, rounds, candidate, merged } = result as ResultRecord;
      return { id, wave, receipt, reason, rounds, candidate, merged, reused };
    });
    let aggregate: JurySummary | null = null;
    let record: string | null = null;
    const allPassed = balls.every((b) => b.receipt === 1 && b.merged !== null);
    let receipt: Receipt = balls.some((b) => b.receipt === -1) ? -1 : allPassed ? 1 : 0;
    const spineCommit = this.merging.spineTip;
    if (receipt === 1 && c.stopped() === null) {
      const places = { repo: c.repoRoot, paths: c.paths, slice: c.slice, stateDir: c.stateDir, env: c.env, say: c.say };
      const input = { ...places, base: c.run.base, agents: c.agents, authors: c.authors, order: this.order };
      const jury = await aggregateSpine({ ...input, ...this.ledger.skipJurors() }, spineCommit);
      c.meter.ran(jury.leaves.map((leaf) => ({ leaf, usage: null })));
      this.ledger.noteSeats(jury.summary.seats);
      aggregate = jury.summary;
      receipt = aggregate.value;
      if (aggregate.value === 1) {
        const spine = { branch: spineBranch(c.slice.id), commit: spineCommit };
        const resultOf = (id: string) => progressOf(this.states, id).result as ResultRecord;
        const passing = (id: string) => readRounds(c.paths, id).find((r) => r.receipt === 1) as RoundRecord;
        const all = this.order.map((id) => ({ id, round: passing(id), result: resultOf(id) }));
        const built = buildProvenance({ slice: c.slice, run: c.run, spine, aggregate, balls: all });
        if ('incomplete' in built) {
          receipt = -1;
          aggregate = { ...aggregate, value: -1, reason: `the record is incomplete: ${built.incomplete}` };
          c.say(`slice ${c.slice.id}: refused: the record is incomplete: ${built.incomplete}`);
        } else {
          writeRecord(c.paths.record, built.record);
          record = c.paths.record;
        }
      }
    } else if (receipt === 1) receipt = 0;
    const spent = c.meter.tally();
    const unknown = spent.unknown > 0 ? ` (${spent.unknown} leaf/leaves did not report a cost)` : '';
    if (c.meter.limit !== undefined) c.say(`spent $${spent.usd.toFixed(4)} of --max-cost $${c.meter.limit}${unknown}`);
    const head = { slice: c.slice.id, base: c.run.base, spine: spineBranch(c.slice.id), spineCommit, receipt, balls };
    const dried = this.ledger.dried.size === 0 ? {} : { dried: [...this.ledger.dried.values()] };
    const reviewers = [...this.ledger.seated].sort();
    const wallMs = Date.now() - started;
    return { ...head, aggregate, reviewers, record, wallMs, spent, stopped: c.stopped(), ...dried };
  }

  private halted(): string | null {
    return this.c.stopped() ?? (this.c.meter.over() ? this.c.meter.reason() : null);
  }

  private async schedule(): Promise<void> {
    const running = new Map<string, Promise<void>>();
    for (;;) {
      for (const id of this.order) {
        if (running.has(id)) continue;
        const state = progressOf(this.states, id);
        const move = nextMove(this.states, id);
        if (move.kind === 'ended' || move.kind === 'wait') continue;
        if (move.kind === 'block') {
          blockBall(this.records, state, move.on, move.why);
          continue;
        }
        const hold = (reason: string) => holdBall(this.records, state, reason, { rounds: [], n: state.rounds.length });
        const halt = this.halted();
        if (halt !== null) {
          hold(halt);
          continue;
        }
        if (running.size >= this.c.jobs) continue;
        const task = this.runBall(state)
          .catch((error: unknown) => hold(`the engine failed on this ball: ${(error as Error).message}`))
          .finally(() => {
            running.delete(id);
            this.integrating = this.integrating.then(() => this.integrate());
          });
        running.set(id, task);
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
  }

  // A ball's start, base plus its dependencies' work merged without a checkout: shared by balls with the same deps.
  private readonly starts = new Map<string, Promise<string>>();
  private startCommit(ball: Ball): Promise<string> {
    const deps = [...ball.deps].sort();
    const key = deps.join('\0');
    let start = this.starts.get(key);
    if (start === undefined) {
      const commits = deps.map((dep) => progressOf(this.states, dep).result?.commit as string);
      start = mergeStart(this.c.repoRoot, this.c.run.base, deps, commits);
      this.starts.set(key, start);
      // A failed merge is that ball's hold, and the next ball with these dependencies tries again.
      start.catch(() => this.starts.delete(key));
    }
    return start;
  }

  private async runBall(state: BallProgress): Promise<void> {
    const { c } = this;
    const { ball, checkpoint } = state;
    const start = await this.startCommit(ball);
    const branch = ballBranch(c.slice.id, ball.id);
    const resuming = checkpoint !== null || state.rounds.length > 0;
    const tip = resuming ? await resolveCommit(c.repoRoot, `refs/heads/${branch}`) : null;
    // A held or interrupted ball goes on from its branch when that still holds its start; else from the start.
    const goOn = tip !== null && (await isAncestor(c.repoRoot, start, tip));
    let commit = goOn ? tip : start;
    // The champion, the proof at the ball's start: kept while going on from the branch, else measured again.
    let champion: ProofRun | null =
      state.rounds.length > 0 || (checkpoint !== null && goOn) ? readRecord<ProofRun>(c.paths.champion(ball.id)) : null;
    const rounds = [...state.rounds];
    const hold = (reason: string) => holdBall(this.records, state, reason, { rounds, n: rounds.length, commit, start });
    c.log.emit('ball', { slice: c.slice.id, ball: ball.id, state: 'dispatched', wave: state.wave });
    const from = rounds.length > 0 ? `, from round ${rounds.length + 1}` : '';
    c.say(`ball ${ball.id}: started (wave ${state.wave}${from}${checkpoint !== null ? ', from its checkpoint' : ''})`);
    try {
      while (rounds.length < 4) {
        const halt = this.halted();
        if (halt !== null) return hold(halt);
        const n = rounds.length + 1;
        const previous = rounds.at(-1) ?? null;
        const prompt = renderBuilderPrompt({ slice: c.slice.id, ball, round: n, previous, checkpoint });
        // A fall-over rebuilds the round from the same commit with no record or event: it never spends a round.
        const fallovers: Fallover[] = [];
        // Builders whose work the commit already holds (earlier rounds or episodes): their families judge none of it.
        const kept = await keptBuilderFamilies(c.repoRoot, c.paths, ball.id, commit);
        const checkMap = n === 1 && !goOn;
        let outcome: RoundResult | null = null;
        for (let builder = this.ledger.nextBuilder(); builder !== undefined; builder = this.ledger.nextBuilder()) {
          const request = this.request(state, { round: n, commit, branch, start, prompt, champion, checkMap });
          const built = await c.runner.buildRound({ ...request, agent: builder.name, ...builtBy(kept, builder) });
          if (champion === null && built.champion !== null) {
            champion = built.champion;
            writeRecord(c.paths.champion(ball.id), champion);
          }
          if (built.dry === undefined) {
            outcome = built;
            break;
          }
          c.meter.ran(built.leaves);
          const ran = this.ledger.ranDry(builder, built.dry);
          fallovers.push(ran);
          recordFallover(this.records, ball.id, built, ran, this.ledger.nextBuilder());
          const halt = this.halted();
          if (halt !== null) return hold(halt);
        }
        if (outcome === null) return hold(this.ledger.ranOut(fallovers));
        this.ledger.noteSeats(outcome.jury?.seats ?? []);
        rounds.push(recordRound(this.records, { ball: ball.id, n, start: commit }, outcome, fallovers));
        c.meter.ran(outcome.leaves);
        if (outcome.commit !== null) commit = outcome.commit;
        if (outcome.receipt === 0) return hold(outcome.reason);
        const { receipt, reason, candidate } = outcome;
        const landed = receipt === 1 ? outcome.commit : null;
        if (receipt !== null)
          return finishBall(this.records, state, { receipt, reason, candidate, commit: landed }, rounds);
      }
      return hold(`four rounds without a pass (the last: ${rounds.at(-1)?.reason ?? 'none'}); there is no fifth round`);
    } finally {
      await c.runner.releaseBall(c.slice.id, ball.id);
    }
  }

  private request(state: BallProgress, round: Pick<RoundRequest, Spot>): Omit<RoundRequest, 'agent'> {
    const { c } = this;
    const { slice, agents, meter } = c;
    const costLeftUsd = meter.limit === undefined ? null : meter.limit - meter.tally().usd;
    const { reviewers, alternates, file: agentsFile } = agents;
    const jury = { reviewers, alternates, agentsFile, ...this.ledger.skipJurors() };
    const run = { passed: passedIds(this.states), timeoutMs: c.timeoutMs, authors: c.authors, costLeftUsd };
    return { slice: slice.id, ball: state.ball.id, definition: slice, spec: state.ball, ...round, ...jury, ...run };
  }

  private async integrate(): Promise<void> {
    const { c } = this;
    const input = { repo: c.repoRoot, slice: c.slice, order: this.order, paths: c.paths, log: c.log, say: c.say };
    const { results, ...merging } = await mergeReady(input, this.states, this.merging);
    this.merging = merging;
    for (const [id, result] of results) progressOf(this.states, id).result = result;
  }
}

type Spot = 'round' | 'commit' | 'branch' | 'start' | 'prompt' | 'champion' | 'checkMap';

// One run: waves and jobs, each ball's rounds (no fifth), holds, resume, merges in plan order, the aggregate jury.
import { isoTimestamp } from '@leap/core';
import { planWaves } from '../definition/index.js';
import type { Ball, Receipt, Slice } from '../definition/slice-schema.js';
import type { RunAgents, RunBuilder } from './agents.js';
import { ballBranch, blockBall, finishBall, holdBall, type RecordsContext } from './ball-records.js';
import type { CostMeter } from './cost.js';
import type { EngineLog } from './events.js';
import { isAncestor, mergeCommits, resolveCommit } from './git.js';
import { keptBuilderFamilies } from './kept-builders.js';
import { spineBranch } from './integrate.js';
import { aggregateOnce, mergeReady } from './integrator.js';
import { renderBuilderPrompt } from './prompt.js';
import { buildProvenance } from './provenance.js';
import { readRecord, readRounds, retireRecord, writeRecord, type JurySummary, type ProofRun, type Fallover, type ResultRecord, type RoundRecord, type RunRecord, type SlicePaths } from './records.js';
import { resumeBalls } from './resume.js';
import type { RoundResult, SliceRunner } from './round-types.js';
import type { BallSummary, RunSummary } from './run-slice.js';
import { freshProgress, nextMove, passedIds, progressOf, type BallProgress } from './scheduler.js';

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
  stop: { reason: string | null };
  file: string;
  /** The spine's tip: this engine is its only writer, under the slice's lock. */
  spineTip: string;
  authors: string[];
}

export class Engine {
  private readonly states: Map<string, BallProgress>;
  private readonly order: string[];
  private readonly reviewersSeated = new Set<string>();
  /** Reviewers whose vendor ran dry on a jury of this run: passed over by every later jury (conveneJury's `skip`). */
  private readonly driedJurors = new Set<string>();
  /** Builders whose vendor ran dry in this run, by name: skipped for the rest of it. */
  private readonly dried = new Map<string, Fallover>();
  private mergeCursor = 0;
  /** A passed ball was reopened: the slice's earlier record no longer holds. */
  private reopened = false;
  private integrating: Promise<void> = Promise.resolve();
  private readonly records: RecordsContext;

  constructor(private readonly c: EngineContext) {
    const waves = planWaves(c.slice);
    this.order = waves.flat();
    this.states = freshProgress(c.slice.balls, waves);
    this.records = { slice: c.slice, file: c.file, base: c.run.base, paths: c.paths, log: c.log, say: c.say };
  }

  private branch(id: string): string {
    return ballBranch(this.c.slice.id, id);
  }

  async run(started: number): Promise<RunSummary> {
    const { c } = this;
    c.say(
      `slice ${c.slice.id}: base ${c.run.base.slice(0, 12)}, ${this.order.length} ball(s) in ${new Set([...this.states.values()].map((s) => s.wave)).size} wave(s), --jobs ${c.jobs}, builder ${c.agents.builders.map((b) => `${b.name} (${b.family})`).join(', then ')}`,
    );
    await this.resume();
    if (this.reopened) retireRecord(c.paths);
    await this.schedule();
    await this.integrating;
    await this.integrate();
    const balls = this.order.map((id) => this.summaryOf(id));
    let aggregate: JurySummary | null = null;
    let record: string | null = null;
    let receipt: Receipt = balls.some((b) => b.receipt === -1) ? -1 : balls.every((b) => b.receipt === 1 && b.merged !== null) ? 1 : 0;
    const spineCommit = c.spineTip;
    if (receipt === 1 && c.stop.reason === null) {
      aggregate = await this.aggregate(spineCommit);
      receipt = aggregate.value;
      if (aggregate.value === 1) {
        const built = buildProvenance({
          slice: c.slice,
          run: c.run,
          spine: { branch: spineBranch(c.slice.id), commit: spineCommit },
          aggregate,
          balls: this.order.map((id) => ({ id, round: this.passingRound(id) as RoundRecord, result: progressOf(this.states, id).result as ResultRecord })),
        });
        if ('incomplete' in built) {
          receipt = -1;
          aggregate = { ...aggregate, value: -1, reason: `the record is incomplete: ${built.incomplete}` };
          c.say(`slice ${c.slice.id}: refused: the record is incomplete: ${built.incomplete}`);
        } else {
          writeRecord(c.paths.record, built.record);
          record = c.paths.record;
        }
      }
    } else if (receipt === 1) {
      receipt = 0;
    }
    const spent = c.meter.tally();
    if (c.meter.limit !== undefined) c.say(`spent $${spent.usd.toFixed(4)} of --max-cost $${c.meter.limit}${spent.unknown > 0 ? ` (${spent.unknown} leaf/leaves did not report a cost)` : ''}`);
    return {
      slice: c.slice.id,
      base: c.run.base,
      spine: spineBranch(c.slice.id),
      spineCommit,
      receipt,
      balls,
      aggregate,
      reviewers: [...this.reviewersSeated].sort(),
      record,
      wallMs: Date.now() - started,
      spent,
      stopped: c.stop.reason,
      ...(this.dried.size === 0 ? {} : { dried: [...this.dried.values()] }),
    };
  }

  // What earlier runs left (resume.ts), applied to each ball's progress.
  private async resume(): Promise<void> {
    const { c } = this;
    const { found, reopened } = await resumeBalls({ repo: c.repoRoot, slice: c.slice.id, paths: c.paths, spineTip: c.spineTip, say: c.say }, this.order, this.states);
    for (const [id, resumed] of found) Object.assign(progressOf(this.states, id), resumed);
    this.reopened = reopened;
  }

  // The scheduler's moves (scheduler.ts), acted on within --jobs, a stop and the cost budget.
  private async schedule(): Promise<void> {
    const { c } = this;
    const running = new Map<string, Promise<void>>();
    for (;;) {
      for (const id of this.order) {
        if (running.has(id)) continue;
        const state = progressOf(this.states, id);
        const move = nextMove(this.states, id);
        if (move.kind === 'ended' || move.kind === 'wait') continue;
        if (move.kind === 'block') {
          state.result = blockBall(this.records, state, move.on, move.why);
          continue;
        }
        if (c.stop.reason !== null || c.meter.over()) {
          this.hold(state, c.stop.reason ?? c.meter.reason(), [], state.rounds.length);
          continue;
        }
        if (running.size >= c.jobs) continue;
        const task = this.runBall(state)
          .catch((error: unknown) => this.hold(state, `the engine failed on this ball: ${(error as Error).message}`, [], state.rounds.length))
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
    const key = [...ball.deps].sort().join('\0');
    let start = this.starts.get(key);
    if (start === undefined) {
      start = this.mergeDeps([...ball.deps].sort());
      this.starts.set(key, start);
      // A failed merge is that ball's hold, and the next ball with these dependencies tries again.
      start.catch(() => this.starts.delete(key));
    }
    return start;
  }

  private async mergeDeps(deps: readonly string[]): Promise<string> {
    const { c } = this;
    let start = c.run.base;
    for (const dep of deps) {
      const commit = progressOf(this.states, dep).result?.commit as string;
      if (await isAncestor(c.repoRoot, commit, start)) continue;
      if (await isAncestor(c.repoRoot, start, commit)) {
        start = commit;
        continue;
      }
      const merged = await mergeCommits(c.repoRoot, start, commit, `leap: start from ${deps.join(', ')}`);
      if (merged === null) throw new Error(`the work of ${deps.join(', ')} does not merge`);
      start = merged;
    }
    return start;
  }

  private async runBall(state: BallProgress): Promise<void> {
    const { c } = this;
    const { ball } = state;
    const start = await this.startCommit(ball);
    const branch = this.branch(ball.id);
    const resuming = state.checkpoint !== null || state.rounds.length > 0;
    const tip = resuming ? await resolveCommit(c.repoRoot, `refs/heads/${branch}`) : null;
    // A held or interrupted ball goes on from its branch when that still holds its start; else from the start.
    const goOn = tip !== null && (await isAncestor(c.repoRoot, start, tip));
    let commit = goOn ? tip : start;
    // The champion, the proof at the ball's start: kept while going on from the branch, else measured again.
    let champion: ProofRun | null = state.rounds.length > 0 || (state.checkpoint !== null && goOn) ? readRecord<ProofRun>(c.paths.champion(ball.id)) : null;
    const rounds = [...state.rounds];
    c.log.emit('ball', { slice: c.slice.id, ball: ball.id, state: 'dispatched', wave: state.wave });
    c.say(`ball ${ball.id}: started (wave ${state.wave}${rounds.length > 0 ? `, from round ${rounds.length + 1}` : ''}${state.checkpoint !== null ? ', from its checkpoint' : ''})`);
    try {
      while (rounds.length < 4) {
        if (c.stop.reason !== null || c.meter.over()) return this.hold(state, c.stop.reason ?? c.meter.reason(), rounds, rounds.length, commit, start);
        const n = rounds.length + 1;
        const prompt = renderBuilderPrompt({ slice: c.slice.id, ball, round: n, previous: rounds.at(-1) ?? null, checkpoint: state.checkpoint });
        // A fall-over rebuilds the round from the same commit with no record or event: it never spends a round.
        const fallovers: Fallover[] = [];
        // Builders whose work the commit already holds (earlier rounds or episodes): their families judge none of it.
        const kept = await keptBuilderFamilies(c.repoRoot, c.paths, ball.id, commit);
        let outcome: RoundResult | null = null;
        let builder: RunBuilder | undefined;
        while ((builder = this.nextBuilder()) !== undefined) {
          const built = await c.runner.buildRound({
            slice: c.slice.id,
            ball: ball.id,
            round: n,
            commit,
            agent: builder.name,
            definition: c.slice,
            spec: ball,
            branch,
            start,
            prompt,
            reviewers: c.agents.reviewers,
            alternates: c.agents.alternates,
            agentsFile: c.agents.file,
            champion,
            checkMap: n === 1 && !goOn,
            passed: passedIds(this.states),
            timeoutMs: c.timeoutMs,
            authors: c.authors,
            costLeftUsd: c.meter.limit === undefined ? null : c.meter.limit - c.meter.tally().usd,
            ...builtBy(kept, builder),
            ...this.skipJurors(),
          });
          if (champion === null && built.champion !== null) {
            champion = built.champion;
            writeRecord(c.paths.champion(ball.id), champion);
          }
          if (built.dry === undefined) {
            outcome = built;
            break;
          }
          c.meter.ran(built.leaves);
          this.fallOver(ball.id, builder, built, fallovers);
          if (c.stop.reason !== null || c.meter.over()) return this.hold(state, c.stop.reason ?? c.meter.reason(), rounds, rounds.length, commit, start);
        }
        if (outcome === null) return this.hold(state, this.ranOut(fallovers), rounds, rounds.length, commit, start);
        this.noteSeats(outcome.jury?.seats ?? []);
        const record: RoundRecord = {
          slice: c.slice.id,
          ball: ball.id,
          round: n,
          receipt: outcome.receipt,
          reason: outcome.reason,
          candidate: outcome.candidate,
          proof: outcome.proof === null ? null : { code: outcome.proof.code, metric: outcome.proof.metric },
          changed: outcome.changed,
          ts: isoTimestamp(),
          start: commit,
          commit: outcome.commit,
          builder: outcome.builder,
          ...(fallovers.length === 0 ? {} : { fallovers }),
          champion: outcome.champion,
          jury: outcome.jury,
          reproof: outcome.reproof,
          answer: outcome.answer ?? null,
          ...(outcome.live === undefined ? {} : { live: outcome.live }),
          ...(outcome.worker === undefined ? {} : { worker: outcome.worker }),
        };
        writeRecord(c.paths.round(ball.id, n), record);
        rounds.push(record);
        c.meter.ran(outcome.leaves);
        c.log.emit('round', {
          slice: c.slice.id,
          ball: ball.id,
          round: n,
          ...(outcome.receipt === null ? {} : { receipt: outcome.receipt }),
          candidate: outcome.candidate,
          reason: outcome.reason,
          agent: outcome.builder.agent,
          family: outcome.builder.family,
        });
        c.say(
          `ball ${ball.id}: round ${n}${fallovers.length === 0 ? '' : ` (built by ${outcome.builder.agent})`}${outcome.worker === undefined ? '' : ` (worker ${outcome.worker})`}: ${outcome.receipt === null ? 'no pass' : `receipt ${outcome.receipt}`}: ${outcome.reason}`,
        );
        if (outcome.commit !== null) commit = outcome.commit;
        if (outcome.receipt === 1) return this.finish(state, 1, outcome.reason, rounds, outcome.commit, outcome.candidate);
        if (outcome.receipt === -1) return this.finish(state, -1, outcome.reason, rounds, null, outcome.candidate);
        if (outcome.receipt === 0) return this.hold(state, outcome.reason, rounds, n, commit, start);
      }
      return this.hold(state, `four rounds without a pass (the last: ${rounds.at(-1)?.reason ?? 'none'}); there is no fifth round`, rounds, 4, commit, start);
    } finally {
      await c.runner.releaseBall(c.slice.id, ball.id);
    }
  }

  // The first builder of the list whose vendor has not run dry in this run; undefined: the list ran out.
  private nextBuilder(): RunBuilder | undefined {
    return this.c.agents.builders.find((b) => !this.dried.has(b.name));
  }

  // A builder ran dry: skipped for the rest of the run; the fall-over recorded (event, narration) with the next one.
  private fallOver(ball: string, builder: RunBuilder, built: RoundResult, fallovers: Fallover[]): void {
    const { c } = this;
    const dry = built.dry as NonNullable<RoundResult['dry']>;
    const ran: Fallover = { agent: builder.name, family: builder.family, cause: dry.kind, message: dry.message };
    this.dried.set(builder.name, ran);
    fallovers.push(ran);
    const next = this.nextBuilder();
    c.log.emit('fallover', {
      leaf: built.builder.leaf,
      role: 'builder',
      agent: builder.name,
      family: builder.family,
      cause: dry.kind,
      message: dry.message,
      next: next?.name ?? null,
      slice: c.slice.id,
      ball,
    });
    c.say(
      `ball ${ball}: ${built.builder.leaf}: the builder ${builder.name} (${builder.family}) ran dry (${dry.kind}: ${dry.message}); ${next === undefined ? 'no builder of the list is left' : `built again by ${next.name} (${next.family}), from the same commit, not counted as a round`}${built.worker === undefined ? '' : ` (worker ${built.worker})`}`,
    );
  }

  // Why a ball is held when every listed builder ran dry: each agent and its cause, this round's and earlier ones'.
  private ranOut(fallovers: readonly Fallover[]): string {
    const dried = [...this.dried.values()];
    const each = dried.map((d) => `${d.agent} (${d.family}) ${d.cause}: ${d.message}`).join('; ');
    return `${fallovers.length === 0 ? 'every builder of the list ran dry earlier in this run' : 'every builder of the list ran dry'}: ${each}; nothing was built, no round spent (run again once a vendor serves again)`;
  }

  private finish(state: BallProgress, receipt: -1 | 1, reason: string, rounds: RoundRecord[], commit: string | null, candidate: string | null): void {
    state.result = finishBall(this.records, state, receipt, reason, rounds, commit, candidate);
  }

  private hold(state: BallProgress, reason: string, rounds: RoundRecord[], n: number, commit?: string, start?: string): void {
    state.result = holdBall(this.records, state, reason, rounds, n, commit, start);
  }

  // Merge the passed balls onto the spine in plan order, as far as every ball before them has ended (integrator.ts).
  private async integrate(): Promise<void> {
    const { c } = this;
    const merged = await mergeReady({ repo: c.repoRoot, slice: c.slice, order: this.order, paths: c.paths, log: c.log, say: c.say }, this.states, { cursor: this.mergeCursor, spineTip: c.spineTip });
    this.mergeCursor = merged.cursor;
    c.spineTip = merged.spineTip;
    for (const [id, result] of merged.results) progressOf(this.states, id).result = result;
  }

  /** Record a jury's seats: who sat, and who ran dry (passed over from now on). */
  private noteSeats(seats: JurySummary['seats']): void {
    for (const seat of seats) {
      this.reviewersSeated.add(seat.reviewer);
      if (seat.dry !== undefined && !this.driedJurors.has(seat.reviewer)) {
        this.driedJurors.add(seat.reviewer);
        this.c.say(`reviewer ${seat.reviewer}'s vendor ran dry (${seat.dry}): passed over by every later jury of this run`);
      }
    }
  }

  private skipJurors(): { skipJurors?: string[] } {
    return this.driedJurors.size === 0 ? {} : { skipJurors: [...this.driedJurors].sort() };
  }

  private async aggregate(spineCommit: string): Promise<JurySummary> {
    const { c } = this;
    // The spine holds the work of every builder that built a kept round: no reviewer of any of their families sits.
    const built = new Set((await Promise.all(this.order.map((id) => keptBuilderFamilies(c.repoRoot, c.paths, id, spineCommit)))).flat());
    const builder = c.agents.builders.find((b) => built.has(b.family)) ?? c.agents.builder;
    const others = [...built].filter((f) => f !== builder.family);
    if (others.length > 0) c.say(`aggregate jury: the spine holds work of builders of ${[builder.family, ...others].join(', ')}: no reviewer of those families sits`);
    const { summary, leaves } = await aggregateOnce(
      {
        repo: c.repoRoot,
        paths: c.paths,
        slice: c.slice,
        stateDir: c.stateDir,
        env: c.env,
        base: c.run.base,
        builder: builder.name,
        builderFamily: builder.family,
        otherBuilderFamilies: others,
        ...this.skipJurors(),
        reviewers: c.agents.reviewers,
        alternates: c.agents.alternates,
        agentsFile: c.agents.file,
        authors: c.authors,
        say: c.say,
      },
      spineCommit,
    );
    c.meter.ran(leaves.map((leaf) => ({ leaf, usage: null })));
    this.noteSeats(summary.seats);
    return summary;
  }

  private passingRound(id: string): RoundRecord | null {
    const rounds = readRounds(this.c.paths, id);
    return rounds.find((r) => r.receipt === 1) ?? null;
  }

  private summaryOf(id: string): BallSummary {
    const state = progressOf(this.states, id);
    const r = state.result as ResultRecord;
    return { id, wave: state.wave, receipt: r.receipt, reason: r.reason, rounds: r.rounds, candidate: r.candidate, merged: r.merged, reused: state.reused };
  }
}

// The families of the other builders whose work the round's commit holds, for the round's jury.
function builtBy(kept: readonly string[], builder: RunBuilder): { builtBy?: string[] } {
  const families = kept.filter((f) => f !== builder.family);
  return families.length === 0 ? {} : { builtBy: families };
}

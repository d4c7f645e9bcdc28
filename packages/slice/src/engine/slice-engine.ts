// The engine of one run: the waves and the jobs, each ball's rounds (no fifth), blocking and holding,
// the records, resume, merges in plan order, the aggregate jury and the record.
import { existsSync, readFileSync } from 'node:fs';
import { isoTimestamp } from '@leap/core';
import { planWaves } from '../definition/index.js';
import type { Ball, Receipt, Slice } from '../definition/slice-schema.js';
import type { RunAgents } from './agents.js';
import { candidateAt } from './candidate-at.js';
import { renderCheckpoint } from './checkpoint.js';
import type { CostMeter } from './cost.js';
import type { EngineLog } from './events.js';
import { isAncestor, mergeCommits, resolveCommit } from './git.js';
import { aggregateJury, mergeBall, spineBranch } from './integrate.js';
import { renderBuilderPrompt } from './prompt.js';
import { buildProvenance } from './provenance.js';
import {
  archiveEpisode,
  readRecord,
  readRounds,
  retireRecord,
  writeRecord,
  writeText,
  type JurySummary,
  type ProofRun,
  type ResultRecord,
  type RoundRecord,
  type RunRecord,
  type SlicePaths,
} from './records.js';
import type { SliceRunner } from './round-types.js';
import type { BallSummary, RunSummary } from './run-slice.js';

interface BallState {
  ball: Ball;
  wave: number;
  result: ResultRecord | null;
  reused: boolean;
  /** The new episode's checkpoint text (a held ball's), for the builder's prompt. */
  checkpoint: string | null;
  /** Where the ball's episode goes on from: rounds already recorded (a killed run). */
  rounds: RoundRecord[];
}

/** What the engine works with, resolved before anything runs. */
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

/** One run of a slice. */
export class Engine {
  private readonly states = new Map<string, BallState>();
  private readonly order: string[];
  private readonly reviewersSeated = new Set<string>();
  private mergeCursor = 0;
  /** A passed ball was reopened: the slice's earlier record no longer holds. */
  private reopened = false;
  private integrating: Promise<void> = Promise.resolve();

  constructor(private readonly c: EngineContext) {
    const waves = planWaves(c.slice);
    this.order = waves.flat();
    for (const [w, wave] of waves.entries()) {
      for (const id of wave) {
        const ball = c.slice.balls.find((b) => b.id === id) as Ball;
        this.states.set(id, { ball, wave: w + 1, result: null, reused: false, checkpoint: null, rounds: [] });
      }
    }
  }

  private branch(id: string): string {
    return `leap/${this.c.slice.id}/${id}`;
  }

  async run(started: number): Promise<RunSummary> {
    const { c } = this;
    c.say(
      `slice ${c.slice.id}: base ${c.run.base.slice(0, 12)}, ${this.order.length} ball(s) in ${new Set([...this.states.values()].map((s) => s.wave)).size} wave(s), --jobs ${c.jobs}, builder ${c.agents.builder.name} (${c.agents.builder.family})`,
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
          balls: this.order.map((id) => ({ id, round: this.passingRound(id) as RoundRecord, result: this.states.get(id)?.result as ResultRecord })),
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
      exitCode: receipt === 1 ? 0 : receipt === -1 ? 1 : 3,
      balls,
      aggregate,
      reviewers: [...this.reviewersSeated].sort(),
      record,
      wallMs: Date.now() - started,
      spent,
      stopped: c.stop.reason,
    };
  }

  // What earlier runs left: passed balls (their bytes re-checked), held or refused balls (a new episode),
  // balls cut off mid-episode (they go on from their last recorded round).
  private async resume(): Promise<void> {
    const { c } = this;
    for (const id of this.order) {
      const state = this.states.get(id) as BallState;
      const result = readRecord<ResultRecord>(c.paths.result(id));
      if (result?.receipt === 1 && result.commit !== null && result.candidate !== null) {
        // The bytes that count are where the candidate lives now: the spine once merged, else the ball's branch.
        const where = result.merged !== null && (await isAncestor(c.repoRoot, result.merged, c.spineTip)) ? c.spineTip : `refs/heads/${this.branch(id)}`;
        const now = await candidateAt(c.repoRoot, where, state.ball).catch(() => null);
        if (now === result.candidate) {
          state.result = result;
          state.reused = true;
          c.say(`ball ${id}: passed on an earlier run (candidate ${result.candidate.slice(0, 12)}), not rebuilt`);
          continue;
        }
        c.say(
          `ball ${id}: the bytes of its candidate changed (sha256 ${result.candidate.slice(0, 12)} -> ${now?.slice(0, 12) ?? 'unreadable'} on ${where === c.spineTip ? spineBranch(c.slice.id) : this.branch(id)}): reopened, and the slice regraded`,
        );
        this.reopened = true;
      }
      if (result !== null) {
        if (result.receipt === 0 && existsSync(c.paths.checkpoint(id))) state.checkpoint = readFileSync(c.paths.checkpoint(id), 'utf8');
        archiveEpisode(c.paths, id);
        continue;
      }
      state.rounds = readRounds(c.paths, id);
      if (state.rounds.length > 0) c.say(`ball ${id}: going on after round ${state.rounds.length} of an interrupted run`);
    }
  }

  private async schedule(): Promise<void> {
    const { c } = this;
    const running = new Map<string, Promise<void>>();
    for (;;) {
      for (const id of this.order) {
        const state = this.states.get(id) as BallState;
        if (state.result !== null || running.has(id)) continue;
        const deps = state.ball.deps.map((d) => this.states.get(d) as BallState);
        const refused = deps.filter((d) => d.result !== null && (d.result.receipt === -1 || d.result.blockedBy?.some((b) => this.refusedChain(b)) === true));
        const held = deps.filter((d) => d.result !== null && d.result.receipt === 0);
        if (refused.length > 0) {
          this.block(
            state,
            refused.map((d) => d.ball.id),
            'refused',
          );
          continue;
        }
        if (held.length > 0) {
          this.block(
            state,
            held.map((d) => d.ball.id),
            'held',
          );
          continue;
        }
        if (!deps.every((d) => d.result?.receipt === 1)) continue;
        if (c.stop.reason !== null || c.meter.over()) {
          await this.hold(state, c.stop.reason ?? c.meter.reason(), [], state.rounds.length);
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

  private refusedChain(id: string): boolean {
    const r = this.states.get(id)?.result;
    return r?.receipt === -1 || r?.blockedBy?.some((b) => this.refusedChain(b)) === true;
  }

  // A descendant of a refused ball is blocked, of a held ball held: receipt 0, never built.
  private block(state: BallState, on: string[], why: 'refused' | 'held'): void {
    const { c } = this;
    const reason = `${why === 'refused' ? 'blocked' : 'held'}: dependency ${on.join(', ')} ${why === 'refused' ? 'refused (-1)' : 'held (0)'}`;
    const result: ResultRecord = { receipt: 0, reason, candidate: null, rounds: 0, merged: null, ts: isoTimestamp(), commit: null, blockedBy: on };
    if (why === 'held') {
      writeText(
        c.paths.checkpoint(state.ball.id),
        renderCheckpoint({
          slice: c.slice.id,
          sliceFile: c.file,
          ball: state.ball,
          base: c.run.base,
          start: c.run.base,
          branch: this.branch(state.ball.id),
          commit: c.run.base,
          rounds: [],
          reason,
          waitingOn: on,
        }),
      );
    }
    writeRecord(c.paths.result(state.ball.id), result);
    state.result = result;
    c.log.emit('ball', { slice: c.slice.id, ball: state.ball.id, state: why === 'refused' ? 'blocked' : 'checkpointed', wave: state.wave, receipt: 0, reason });
    c.say(`ball ${state.ball.id}: ${reason}`);
  }

  // The commit a ball starts from: base plus its dependencies' work, merged without a checkout.
  private async startCommit(ball: Ball): Promise<string> {
    const { c } = this;
    let start = c.run.base;
    for (const dep of ball.deps) {
      const commit = this.states.get(dep)?.result?.commit as string;
      if (await isAncestor(c.repoRoot, commit, start)) continue;
      if (await isAncestor(c.repoRoot, start, commit)) {
        start = commit;
        continue;
      }
      const merged = await mergeCommits(c.repoRoot, start, commit, `leap: ${ball.id} starts from ${ball.deps.join(', ')}`);
      if (merged === null) throw new Error(`the work of ${ball.deps.join(', ')} does not merge`);
      start = merged;
    }
    return start;
  }

  private async runBall(state: BallState): Promise<void> {
    const { c } = this;
    const { ball } = state;
    const start = await this.startCommit(ball);
    const branch = this.branch(ball.id);
    const resuming = state.checkpoint !== null || state.rounds.length > 0;
    const tip = resuming ? await resolveCommit(c.repoRoot, `refs/heads/${branch}`) : null;
    // A held or interrupted ball goes on from its branch when that still holds its start; else from the start.
    const goOn = tip !== null && (await isAncestor(c.repoRoot, start, tip));
    let commit = goOn ? tip : start;
    let champion: ProofRun | null = state.rounds.length > 0 || state.checkpoint !== null ? readRecord<ProofRun>(c.paths.champion(ball.id)) : null;
    const rounds = [...state.rounds];
    c.log.emit('ball', { slice: c.slice.id, ball: ball.id, state: 'dispatched', wave: state.wave });
    c.say(`ball ${ball.id}: started (wave ${state.wave}${rounds.length > 0 ? `, from round ${rounds.length + 1}` : ''}${state.checkpoint !== null ? ', from its checkpoint' : ''})`);
    try {
      while (rounds.length < 4) {
        if (c.stop.reason !== null || c.meter.over()) return await this.hold(state, c.stop.reason ?? c.meter.reason(), rounds, rounds.length, commit, start);
        const n = rounds.length + 1;
        const prompt = renderBuilderPrompt({ slice: c.slice.id, ball, round: n, previous: rounds.at(-1) ?? null, checkpoint: state.checkpoint });
        const outcome = await c.runner.buildRound({
          slice: c.slice.id,
          ball: ball.id,
          round: n,
          commit,
          agent: c.agents.builder.name,
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
          passed: this.passedIds(),
          timeoutMs: c.timeoutMs,
          authors: c.authors,
          costLeftUsd: c.meter.limit === undefined ? null : c.meter.limit - c.meter.tally().usd,
        });
        if (champion === null && outcome.champion !== null) {
          champion = outcome.champion;
          writeRecord(c.paths.champion(ball.id), champion);
        }
        for (const seat of outcome.jury?.seats ?? []) this.reviewersSeated.add(seat.reviewer);
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
        c.log.emit('round', { slice: c.slice.id, ball: ball.id, round: n, ...(outcome.receipt === null ? {} : { receipt: outcome.receipt }), candidate: outcome.candidate, reason: outcome.reason });
        c.say(
          `ball ${ball.id}: round ${n}${outcome.worker === undefined ? '' : ` (worker ${outcome.worker})`}: ${outcome.receipt === null ? 'no pass' : `receipt ${outcome.receipt}`}: ${outcome.reason}`,
        );
        if (outcome.commit !== null) commit = outcome.commit;
        if (outcome.receipt === 1) return this.finish(state, 1, outcome.reason, rounds, outcome.commit, outcome.candidate);
        if (outcome.receipt === -1) return this.finish(state, -1, outcome.reason, rounds, null, outcome.candidate, start);
        if (outcome.receipt === 0) return await this.hold(state, outcome.reason, rounds, n, commit, start);
      }
      return await this.hold(state, `four rounds without a pass (the last: ${rounds.at(-1)?.reason ?? 'none'}); there is no fifth round`, rounds, 4, commit, start);
    } finally {
      await c.runner.releaseBall(c.slice.id, ball.id);
    }
  }

  private passedIds(): string[] {
    return [...this.states.values()].filter((s) => s.result?.receipt === 1).map((s) => s.ball.id);
  }

  private finish(state: BallState, receipt: -1 | 1, reason: string, rounds: RoundRecord[], commit: string | null, candidate: string | null, _start?: string): void {
    const { c } = this;
    const result: ResultRecord = { receipt, reason, candidate, rounds: rounds.length, merged: null, ts: isoTimestamp(), commit };
    writeRecord(c.paths.result(state.ball.id), result);
    state.result = result;
    c.log.emit('receipt', { slice: c.slice.id, ball: state.ball.id, value: receipt, candidate, evidence: reason });
    c.log.emit('ball', { slice: c.slice.id, ball: state.ball.id, state: 'done', wave: state.wave, receipt, reason });
    c.say(`ball ${state.ball.id}: ${receipt === 1 ? `1 pass after ${rounds.length} round(s), candidate ${candidate?.slice(0, 12)}` : `-1 refused: ${reason}`}`);
  }

  // Receipt 0: the checkpoint the next run resumes from, in the session-handoff format.
  private async hold(state: BallState, reason: string, rounds: RoundRecord[], n: number, commit?: string, start?: string): Promise<void> {
    const { c } = this;
    const { ball } = state;
    const from = start ?? c.run.base;
    writeText(
      c.paths.checkpoint(ball.id),
      renderCheckpoint({
        slice: c.slice.id,
        sliceFile: c.file,
        ball,
        base: c.run.base,
        start: from,
        branch: this.branch(ball.id),
        commit: commit ?? from,
        rounds,
        reason,
      }),
    );
    const result: ResultRecord = { receipt: 0, reason, candidate: rounds.at(-1)?.candidate ?? null, rounds: n, merged: null, ts: isoTimestamp(), commit: null };
    writeRecord(c.paths.result(ball.id), result);
    state.result = result;
    c.log.emit('receipt', { slice: c.slice.id, ball: ball.id, value: 0, candidate: result.candidate, evidence: reason });
    c.log.emit('ball', { slice: c.slice.id, ball: ball.id, state: 'checkpointed', wave: state.wave, receipt: 0, reason });
    c.say(`ball ${ball.id}: 0 held: ${reason} (checkpoint ${c.paths.checkpoint(ball.id)})`);
  }

  // Merge the passed balls onto the spine in plan order, as far as every ball before them has ended.
  private async integrate(): Promise<void> {
    const { c } = this;
    while (this.mergeCursor < this.order.length) {
      const id = this.order[this.mergeCursor] as string;
      const state = this.states.get(id) as BallState;
      if (state.result === null) return;
      this.mergeCursor++;
      const result = state.result;
      if (result.receipt !== 1 || result.commit === null) continue;
      const merged = await mergeBall(c.repoRoot, c.slice.id, state.ball, result.commit, c.spineTip, !state.reused);
      if (merged.ok) c.spineTip = merged.commit;
      if (!merged.ok) {
        state.result = { ...result, receipt: -1, reason: `refused at the spine: ${merged.reason}`, merged: null };
        writeRecord(c.paths.result(id), state.result);
        c.log.emit('receipt', { slice: c.slice.id, ball: id, value: -1, candidate: result.candidate, evidence: state.result.reason });
        c.say(`ball ${id}: -1 refused at the spine: ${merged.reason}`);
        continue;
      }
      if (result.merged !== merged.commit && !(merged.already && result.merged !== null)) {
        state.result = { ...result, merged: merged.commit };
        writeRecord(c.paths.result(id), state.result);
      }
      if (!merged.already) {
        c.log.emit('merge', { slice: c.slice.id, ball: id, commit: merged.commit, candidate: result.candidate as string });
        c.say(`ball ${id}: merged onto ${spineBranch(c.slice.id)} at ${merged.commit.slice(0, 12)}`);
      }
    }
  }

  private async aggregate(spineCommit: string): Promise<JurySummary> {
    const { c } = this;
    const earlier = readRecord<JurySummary & { spine: string }>(c.paths.aggregate);
    if (earlier !== null && earlier.value === 1 && earlier.spine === spineCommit) {
      c.say(`aggregate jury: passed on an earlier run for spine ${spineCommit.slice(0, 12)}`);
      return earlier;
    }
    c.say(`aggregate jury: convened on ${spineBranch(c.slice.id)} at ${spineCommit.slice(0, 12)}`);
    const jury = await aggregateJury({
      repo: c.repoRoot,
      paths: c.paths,
      slice: c.slice,
      stateDir: c.stateDir,
      env: c.env,
      base: c.run.base,
      builder: c.agents.builder.name,
      builderFamily: c.agents.builder.family,
      reviewers: c.agents.reviewers,
      alternates: c.agents.alternates,
      agentsFile: c.agents.file,
      authors: c.authors,
    });
    const { leaves, ...summary } = jury;
    c.meter.ran(leaves.map((leaf) => ({ leaf, usage: null })));
    for (const seat of summary.seats) this.reviewersSeated.add(seat.reviewer);
    writeRecord(c.paths.aggregate, { ...summary, spine: spineCommit, ts: isoTimestamp() });
    c.say(`aggregate jury: ${summary.value}: ${summary.reason}`);
    return summary;
  }

  private passingRound(id: string): RoundRecord | null {
    const rounds = readRounds(this.c.paths, id);
    return rounds.find((r) => r.receipt === 1) ?? null;
  }

  private summaryOf(id: string): BallSummary {
    const state = this.states.get(id) as BallState;
    const r = state.result as ResultRecord;
    return { id, wave: state.wave, receipt: r.receipt, reason: r.reason, rounds: r.rounds, candidate: r.candidate, merged: r.merged, reused: state.reused };
  }
}

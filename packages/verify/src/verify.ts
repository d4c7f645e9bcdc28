// leap-verify: ground truth first, then the blind verifier agent; a verdict event either way.
import { type EventContext, LeapError, UsageError, appendEvent, createEvent, findExecutable } from '@leap/core';
import { readRunContext, resolveStateDir, statePaths } from '@leap/core';
import { loadAgentRegistry, resolveAgent } from './agents.js';
import { parseWholeJson } from './answer-json.js';
import { gatherVerifyInput, type GatherOptions } from './gather-verify-input.js';
import { gitOrNull } from './git.js';
import { UNNAMED, flakyReason, knownFlaky, namedFailures, recordFlaky, rerunStep } from './flaky.js';
import { checkGroundTruth, type GroundTruth, type GroundTruthOptions } from './ground-truth.js';
import type { SuiteRun } from './test-report.js';
import { checkPhase, type Phase } from './phase.js';
import { runAgentLeaf, type AgentFailureKind, type AgentLeafResult } from './run-agent-leaf.js';
import { SuiteLimitError } from './run-suite.js';
import { answerProblem, loadVerifySchema } from './validate-answer.js';
import { buildVerifyPrompt } from './verify-prompt.js';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxSetting } from './leaf-sandbox.js';
import type { VerifyPromptOptions } from './verify-prompt-command.js';

export interface VerifyOptions extends VerifyPromptOptions {
  agent?: string;
  agentsFile?: string;
  suiteLog?: string;
  head?: string;
  preflight?: boolean;
  passedTrees?: readonly string[];
  /** The verifier reads a throwaway copy, suites write the tree (CONTRACT section 13); no sandbox possible: exit 2. */
  sandbox?: SandboxSetting;
  testNetwork?: boolean;
}

/** The verdict: 0 PASS, 1 REJECT (or BLOCKED, or a flaky test), 2 malformed, killed or bad input. */
export interface VerifyResult {
  code: 0 | 1 | 2;
  /** BLOCKED: the verifier says the step cannot be done as written; flaky: a test passed once and failed once. */
  verdict: 'PASS' | 'REJECT' | 'ERROR' | 'BLOCKED' | 'flaky';
  reason: string;
  flaky?: string[];
  phase: Phase;
  decidedBy: 'input' | 'ground-truth' | 'agent';
  commit?: string;
  tests?: string[];
  agent?: string;
  failureKind?: AgentFailureKind;
  /** When the agent decided: its leaf's end and cost for the caller; not printed by `leap-verify --json`. */
  leaf?: AgentLeafResult;
}

/** Bad input writes only the verdict event and throws a UsageError (exit 2); an unknown phase, before any write. */
export async function verify(options: VerifyOptions): Promise<VerifyResult> {
  const phase = checkPhase(options.phase);
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const stateDir = resolveStateDir(env, cwd);
  const run = readRunContext(stateDir, env);
  const issue = options.issue ?? run.issue;
  const context: EventContext = { issue, step: options.step ?? null, skillCommit: run.skillCommit };
  let counts: GroundTruth['counts'] | null = null;
  const record = (result: VerifyResult): VerifyResult => {
    const { code, verdict, reason, commit, tests, agent } = result;
    if (verdict === 'flaky') {
      recordFlaky(stateDir, context, phase, result.flaky ?? [], commit === undefined ? {} : { commit });
      return result;
    }
    const fields = { phase, verdict, reason, code, commit, tests, agent, ...(counts === null ? {} : { counts }) };
    appendEvent(statePaths(stateDir).events, createEvent('verdict', fields, context));
    return result;
  };
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare({ ...options, phase, cwd, env, issue }, run.testCmd);
  } catch (error) {
    if (error instanceof LeapError)
      record({ code: 2, verdict: 'ERROR', reason: error.message, phase, decidedBy: 'input' });
    throw error;
  }
  const { gathered, agent, testCmd, sandbox } = prepared;
  const base: Pick<VerifyResult, 'phase' | 'commit' | 'tests'> = { phase, tests: gathered.tests.files };
  const head = () => gitOrNull(gathered.repo, ['rev-parse', 'HEAD'])?.trim() ?? null;
  const commit = phase === 'red' ? gathered.tests.redCommit : (options.head ?? head());
  if (commit !== null) base.commit = commit;
  const { repo, tests } = gathered;
  const truthOptions: GroundTruthOptions = { ...options, phase, repo, stateDir, testCmd, tests, env, sandbox };
  truthOptions.head = commit ?? undefined;
  const truth = await checkGroundTruth(truthOptions).catch((error: unknown) => {
    // A suite a limit ended is no verdict on the work: recorded as an ERROR, and thrown for the caller to name.
    if (error instanceof SuiteLimitError) {
      const reason = `ground truth: ${error.message}`;
      record({ ...base, code: 2, verdict: 'ERROR', reason, decidedBy: 'ground-truth' });
    }
    throw error;
  });
  counts = truth.counts ?? null;
  const notOk =
    truth.flaky === undefined ? { verdict: 'REJECT' as const } : { verdict: 'flaky' as const, flaky: truth.flaky };
  if (!truth.ok) return record({ ...base, code: 1, ...notOk, reason: truth.reason, decidedBy: 'ground-truth' });
  // Green: the step's tests again, while the agent reads (a flaky test is never ticked).
  const again = phase === 'green' && commit !== null ? rerunStep(truthOptions, tests.files, commit) : null;
  again?.catch(() => undefined);
  const leaf = await runAgentLeaf({
    name: `verify-${phase}`,
    agent,
    prompt: buildVerifyPrompt(gathered.input),
    options: { role: 'verifier', cwd: gathered.repo, answerSchema: loadVerifySchema('verdict.schema.json') },
    stateDir,
    env,
    preflight: options.preflight,
    sandbox: sandbox.bwrap === null ? null : agentSandbox(agent, 'reader', gathered.repo, env, stateDir),
  });
  const judged = { ...base, agent: agent.name, decidedBy: 'agent' as const, leaf };
  const flaky = again === null ? [] : flakyOf(await again, knownFlaky(stateDir, issue));
  if (flaky.length > 0) return record({ ...judged, code: 1, verdict: 'flaky', reason: flakyReason(flaky), flaky });
  return record(agentVerdict(judged, truth.note));
}

type AgentJudged = Omit<VerifyResult, 'code' | 'verdict' | 'reason'> & { agent: string; leaf: AgentLeafResult };

function agentVerdict(judged: AgentJudged, note?: string): VerifyResult {
  const { leaf } = judged;
  if (leaf.answer === null) {
    const reason = `no verdict: ${leaf.failure ?? 'no answer'}`;
    const failed: VerifyResult = { ...judged, code: 2, verdict: 'ERROR', reason };
    if (leaf.failureKind !== null) failed.failureKind = leaf.failureKind;
    return failed;
  }
  const { text } = leaf.answer;
  const json = leaf.answer.json !== undefined ? { value: leaf.answer.json } : parseWholeJson(text);
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const notOne = `the answer is not one JSON object: ${JSON.stringify(shown)}`;
  const problem = json === null ? notOne : answerProblem('verdict.schema.json', json.value, `${judged.agent}'s answer`);
  if (problem !== null) return { ...judged, code: 2, verdict: 'ERROR', reason: `malformed verdict: ${problem}` };
  const answer = (json as { value: { verdict: 'PASS' | 'REJECT' | 'BLOCKED'; reason: string } }).value;
  const reason = note === undefined ? answer.reason : `${answer.reason} (ground truth: ${note})`;
  return { ...judged, code: answer.verdict === 'PASS' ? 0 : 1, verdict: answer.verdict, reason };
}

// The tests a second run failed that the first passed, but for the baseline's flaky ones (never blamed on a step).
function flakyOf(run: SuiteRun, known: Set<string>): string[] {
  if (run.code === 0) return [];
  const names = namedFailures(run);
  const blamed = names.filter((name) => !known.has(name));
  return names.includes(UNNAMED) && known.has(UNNAMED) ? [] : blamed;
}

type PrepareOptions = GatherOptions & Pick<VerifyOptions, 'agent' | 'agentsFile' | 'sandbox' | 'testNetwork'>;

async function prepare(options: PrepareOptions, testCmd: string | null) {
  const { env } = options;
  const gathered = await gatherVerifyInput(options);
  if (testCmd === null || testCmd.trim() === '')
    throw new UsageError('VERI_TEST_CMD is not set: the verifier runs the test command itself for ground truth');
  const name = options.agent ?? (env.VERI_VERIFY_AGENT || undefined) ?? 'claude';
  const agent = resolveAgent(name, loadAgentRegistry(options.agentsFile, env));
  const command = agent.buildInvocation('', { role: 'verifier', cwd: gathered.repo }).command;
  const missing = `${JSON.stringify(command)} is not an executable file${command.includes('/') ? '' : ' on PATH'}`;
  if (findExecutable(command, env.PATH, gathered.repo) === null)
    throw new UsageError(`agent ${JSON.stringify(agent.name)} is not installed: ${missing}`);
  const sandbox = chooseSandbox(options.sandbox ?? sandboxSetting(undefined, env), env, options.testNetwork === true);
  return { gathered, agent, testCmd, sandbox };
}

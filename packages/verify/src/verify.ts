// leap-verify: ground truth first, then the blind verifier agent; a verdict event either way.
import { type EventContext, LeapError, UsageError, appendEvent, createEvent, findExecutable } from '@leap/core';
import { previewText, readRunContext, resolveStateDir, statePaths } from '@leap/core';
import { loadAgentRegistry, resolveAgent } from './agents.js';
import { answerProblem, loadVerifySchema, parseWholeJson } from './answer-json.js';
import { gatherVerifyInput, type GatherOptions, type VerifyPromptOptions } from './gather-verify-input.js';
import { gitOrNull } from './git.js';
import { UNNAMED, flakyReason, knownFlaky, namedFailures, recordFlaky, rerunStep } from './ground-truth.js';
import { checkGroundTruth, type GroundTruthOptions } from './ground-truth.js';
import type { VerdictAnswer } from './schemas/answer-schemas.js';
import type { SuiteRun, TestCounts } from './test-report.js';
import { runAgentLeaf, type AgentFailureKind, type AgentLeafResult } from './run-agent-leaf.js';
import { SuiteLimitError } from './run-suite.js';
import { buildVerifyPrompt, checkPhase, type Phase } from './verify-prompt.js';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxSetting } from './leaf-sandbox.js';

type RunOptions = { agent?: string; agentsFile?: string; suiteLog?: string; head?: string; preflight?: boolean };
/** `sandbox`: the verifier reads a throwaway copy, suites write the tree (CONTRACT section 13); none: exit 2. */
type Sandboxing = { sandbox?: SandboxSetting; testNetwork?: boolean; passedTrees?: readonly string[] };
export type VerifyOptions = VerifyPromptOptions & RunOptions & Sandboxing;

/** `verdict` BLOCKED: the step cannot be done as written; flaky: a test passed once and failed once. */
type Verdict = { code: 0 | 1 | 2; verdict: 'PASS' | 'REJECT' | 'ERROR' | 'BLOCKED' | 'flaky'; reason: string };
type Decided = { phase: Phase; decidedBy: 'input' | 'ground-truth' | 'agent'; commit?: string; tests?: string[] };
/** `leaf`: when the agent decided, its leaf's end and cost for the caller; not printed by `leap-verify --json`. */
type AgentPart = { agent?: string; failureKind?: AgentFailureKind; leaf?: AgentLeafResult };
export type VerifyResult = Verdict & { flaky?: string[] } & Decided & AgentPart;

/** Bad input writes only the verdict event and throws a UsageError (exit 2); an unknown phase, before any write. */
export async function verify(options: VerifyOptions): Promise<VerifyResult> {
  const phase = checkPhase(options.phase);
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const stateDir = resolveStateDir(env, cwd);
  const run = readRunContext(stateDir, env);
  const issue = options.issue ?? run.issue;
  const context: EventContext = { issue, step: options.step ?? null, skillCommit: run.skillCommit };
  let counts: TestCounts | null = null;
  const record = (result: VerifyResult): VerifyResult => {
    const { code, verdict, reason, commit, tests, agent } = result;
    const fields = { phase, verdict, reason, code, commit, tests, agent, ...(counts === null ? {} : { counts }) };
    if (verdict !== 'flaky') appendEvent(statePaths(stateDir).events, createEvent('verdict', fields, context));
    else recordFlaky(stateDir, context, phase, result.flaky ?? [], commit === undefined ? {} : { commit });
    return result;
  };
  const prepared = await prepare({ ...options, phase, cwd, env, issue }, run.testCmd).catch((error: unknown) => {
    if (error instanceof LeapError)
      record({ code: 2, verdict: 'ERROR', reason: error.message, phase, decidedBy: 'input' });
    throw error;
  });
  const { gathered, agent, testCmd, sandbox } = prepared;
  const { repo, tests } = gathered;
  const commit =
    phase === 'red' ? tests.redCommit : (options.head ?? gitOrNull(repo, ['rev-parse', 'HEAD'])?.trim() ?? null);
  const base = { phase, tests: tests.files, ...(commit === null ? {} : { commit }) };
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
  const again = phase === 'green' && commit !== null ? rerunStep(truthOptions, tests.files, commit) : null;
  again?.catch(() => undefined);
  const leaf = await runAgentLeaf({
    name: `verify-${phase}`,
    agent,
    prompt: buildVerifyPrompt(gathered.input),
    options: { role: 'verifier', cwd: repo, answerSchema: loadVerifySchema('verdict.schema.json') },
    stateDir,
    env,
    preflight: options.preflight,
    sandbox: sandbox.bwrap === null ? null : agentSandbox(agent, 'reader', repo, env, stateDir),
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
    const kind = leaf.failureKind === null ? {} : { failureKind: leaf.failureKind };
    return { ...judged, code: 2, verdict: 'ERROR', reason: `no verdict: ${leaf.failure ?? 'no answer'}`, ...kind };
  }
  const { text } = leaf.answer;
  const json = leaf.answer.json !== undefined ? { value: leaf.answer.json } : parseWholeJson(text);
  const notOne = `the answer is not one JSON object: ${previewText(text, 200)}`;
  const problem = json === null ? notOne : answerProblem('verdict.schema.json', json.value, `${judged.agent}'s answer`);
  if (problem !== null) return { ...judged, code: 2, verdict: 'ERROR', reason: `malformed verdict: ${problem}` };
  const answer = (json as { value: VerdictAnswer }).value;
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

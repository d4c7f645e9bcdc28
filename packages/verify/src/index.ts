// @leap/verify: blind verification (leap-verify, leap-verdict) and the blind jury (leap-jury).
export type { Phase } from './phase.js';
export { BLOCKED_SENTENCE, VERDICT_ANSWER_FORMAT, buildVerifyPrompt } from './verify-prompt.js';
export type { PromptTestFile, VerifyPromptInput } from './verify-prompt.js';
export { gatherVerifyInput } from './gather-verify-input.js';
export { BASE_DIFF_LIMIT, readBaseDiff, readCommitDiff } from './base-diff.js';
export type { GatherOptions, GatheredInput } from './gather-verify-input.js';
export { renderVerifyPrompt } from './verify-prompt-command.js';
export type { VerifyPromptOptions } from './verify-prompt-command.js';
export { allCriteria, criterionBlock, readStepSpec } from './step-spec.js';
export type { StepSpecOptions } from './step-spec.js';
export { findStepTests, listFiles } from './step-tests.js';
export type { StepTests, StepTestsOptions } from './step-tests.js';
export { findRedVerdict } from './red-verdict.js';
export type { RedVerdict } from './red-verdict.js';
export { globToRegExp, isTestFile, matchGlobs, testFilePredicate } from './test-files.js';
export { hasInlineTests, rustTestItems, splitTestItems } from './test-items.js';
export { checkGroundTruth } from './ground-truth.js';
export { SuiteLimitError, runSuite } from './run-suite.js';
export type { SuiteLimit, SuiteOptions } from './run-suite.js';
export { CANARIES, canaryFor } from './canary.js';
export { runBaselineTwice } from './flaky.js';
export { failedTests, readCounts } from './test-report.js';
export type { GroundTruth, GroundTruthOptions } from './ground-truth.js';
export { topLevelName, withScratchTree } from './scratch-tree.js';
export {
  BUILTIN_AGENTS,
  agentList,
  loadAgentRegistry,
  resolveAgent,
  withVendorFamily,
  type ListedRole,
} from './agents.js';
export { vendorFamily } from './family.js';
export type { AgentEntry, AgentRegistry } from './agents.js';
export { checkAgentReady, runAgentLeaf } from './run-agent-leaf.js';
export type { AgentFailureKind, AgentLeafOptions, AgentLeafResult, AgentReadiness } from './run-agent-leaf.js';
export { blockedReason, lastVerdictObject, parseWholeJson } from './answer-json.js';
export { answerProblem, loadVerifySchema } from './validate-answer.js';
export type { AnswerSchemaName } from './validate-answer.js';
export { verify } from './verify.js';
export type { VerifyOptions, VerifyResult } from './verify.js';
export { sandboxFlag } from './cli-args.js';
export { candidateHash, readCandidate } from './jury/candidate.js';
export type { CandidateFile } from './jury/candidate.js';
export { EnvelopeLeakError, buildEnvelope, checkEnvelopeLeaks } from './jury/envelope.js';
export type { AuthorAliases, EnvelopeInput } from './jury/envelope.js';
export { LENS_PREAMBLES, renderJurorPrompt } from './jury/juror-prompt.js';
export { judgeReview, parseFinding } from './jury/judge-review.js';
export type { Finding, SeatVerdict } from './jury/judge-review.js';
export { seatReviewers } from './jury/seat-reviewers.js';
export type { RefusedSeat, Seating } from './jury/seat-reviewers.js';
export { gitAliases } from './jury/git-aliases.js';
export type { TreeFingerprint } from './jury/tree-fingerprint.js';
export { combine, conveneJury } from './jury/convene-jury.js';
export type { JuryOptions, JuryResult, SeatRecord } from './jury/convene-jury.js';
export { agentSandbox, chooseSandbox, sandboxSetting, suiteSandbox } from './leaf-sandbox.js';
export type { SandboxChoice, SandboxSetting } from './leaf-sandbox.js';

export { supervise, FORWARDED_SIGNALS } from './supervise.js';
export type { SuperviseOptions } from './supervise.js';
export type { LeafIo } from './leaf-io.js';
export { formatStatusLine, recordEnd } from './record-end.js';
export type { SuperviseResult, EndDetails } from './record-end.js';
export { waitLeaf, DEFAULT_WAIT_BUDGET_MS } from './wait-leaf.js';
export type { WaitOptions, WaitResult } from './wait-leaf.js';
export { detach, supervisedName } from './detach.js';
export type { DetachOptions, DetachResult } from './detach.js';
export { checkStop, requestStopLogged, clearStopLogged } from './stop.js';
export type { StopOptions } from './stop.js';
export {
  readPidFile,
  readExitFile,
  writeExitFile,
  formatExitRecord,
  formatPidRecord,
  replaceFile,
  removeStale,
  newRunId,
} from './leaf-files.js';
export type { PidRecord, ExitRecord } from './leaf-files.js';
export { LeafTree } from './leaf-tree.js';
export type { TreeMembers } from './leaf-tree.js';
export { killTree, signalTree } from './kill-tree.js';
export type { KillOutcome, KillOptions, Leader } from './kill-tree.js';
export {
  scanProcesses,
  recentProcesses,
  readProc,
  environHasKey,
  isDeadState,
  isGone,
  parseStatFields,
} from './proc-scan.js';
export type { ProcInfo } from './proc-scan.js';
export { nowMs, setLongTimeout, sleep } from './long-timer.js';
export { endOrphanLeaves, findOrphanLeaves, sweepOrphansOf, type OrphanLeaf, type OrphanSweep } from './orphans.js';
export { watchDir } from './dir-watch.js';
export type { DirWatch } from './dir-watch.js';
export { buildLeafEnv } from './leaf-env.js';
export { readSuperviseConfig, DEFAULT_KILL_AFTER_MS } from './supervise-config.js';
export { spawnLeaf, startFailureCode } from './spawn-leaf.js';
export type { LeafStdio, SpawnResult } from './spawn-leaf.js';
export { openInput, openOutput } from './leaf-io.js';
export { monitorTree, monitorInterval } from './tree-monitor.js';
export { runLeaf } from './run-leaf.js';
export { armLifeline } from './lifeline.js';
export { runNotify, splitNotify } from './notify.js';
export type { NotifyEvent, NotifyOutcome } from './notify.js';
export type { KillReason, LeafOutcome } from './run-leaf.js';
export * from './exit-codes.js';
export {
  bwrapArgs,
  planMounts,
  sandboxArgv,
  sandboxEnv,
  mainRepoRoot,
  SandboxSpecError,
  DEFAULT_STATE_DIRS,
  DEFAULT_LINK_READ_ONLY,
} from './sandbox-plan.js';
export { CREDENTIAL_PATHS, AGENT_CLI_PATHS } from './sandbox-home.js';
export type { SandboxRole, SandboxSpec, FsView, FsEntry, MountOp, PlanOptions } from './sandbox-plan.js';
export { layerEntries } from './sandbox-layer.js';
export { hostView } from './once-view.js';
export { clearApart, ignoredEntries, putBack, type ApartEnd } from './apart.js';
export {
  checkSandbox,
  findBwrap,
  prepareSandbox,
  copyTree,
  namespaceCause,
  parseSandboxSetting,
  resetSandboxCheck,
  SandboxUnavailableError,
  SandboxSettingError,
  EXIT_NO_SANDBOX,
} from './sandbox.js';
export type { PreparedSandbox } from './sandbox.js';
export { detachRun, type DetachRunOptions, type DetachRunResult } from './detach-run.js';

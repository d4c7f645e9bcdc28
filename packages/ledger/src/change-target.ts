// The ledger a changing command works on: `--issue N`, `--ledger FILE`, else the run's VERI_ISSUE.
import { UsageError, envIssue, resolveStateDir, statePaths } from '@leap/core';
import { locateLedger, type LedgerFile, type LedgerLocation } from './ledger-source.js';

/** The ledger file and the state folder of a changing command. */
export interface ChangeTarget extends LedgerFile {
  stateDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Resolve where a changing command acts; `command` words the error when no ledger is named. */
export function changeTarget(location: LedgerLocation, command: string): ChangeTarget {
  const cwd = location.cwd ?? process.cwd();
  const env = location.env ?? process.env;
  const stateDir = resolveStateDir(env, cwd);
  const located = locateLedger({ ...location, cwd, env });
  if (located !== null) return { ...located, stateDir, cwd, env };
  const issue = envIssue(env);
  if (issue === null) throw new UsageError(`${command}: expected --issue N or --ledger FILE (or VERI_ISSUE in the environment) to name the ledger`);
  return { path: statePaths(stateDir).ledger(issue), issue, stateDir, cwd, env };
}

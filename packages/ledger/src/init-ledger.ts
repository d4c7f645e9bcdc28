// `leap-ledger init`: a ledger from a plan (a title line, then one step a line), written atomically.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError, writeFileAtomic } from '@leap/core';
import { parsePlan, renderLedger } from '@leap/core/ledger';
import { changeTarget } from './change-target.js';
import { logLedgerEventOrWarn } from './events.js';
import type { LedgerLocation } from './ledger-source.js';
import { decodeUtf8 } from './read-input.js';
import { takeLedgerLock } from './transaction/locks.js';

/** Options of initLedger: where the ledger goes, the plan's bytes and name. */
export interface InitOptions extends LedgerLocation {
  plan: Uint8Array;
  /** The plan's name in messages (its path, or `<stdin>`). */
  planFile: string;
  /** Replace an existing ledger (its progress is lost). */
  force?: boolean;
}

/** Write a new ledger from a plan; returns its path and step count. Nothing is written on a bad plan. */
export async function initLedger(options: InitOptions): Promise<{ ledger: string; steps: number }> {
  const target = changeTarget(options, 'init');
  const plan = parsePlan(decodeUtf8(options.plan, options.planFile), options.planFile);
  const text = renderLedger(plan);
  const lock = takeLedgerLock(target.stateDir);
  try {
    if (options.force !== true && existsSync(target.path)) {
      throw new UsageError(`${target.path}: a ledger exists already (its progress would be lost); pass --force to replace it`);
    }
    mkdirSync(dirname(target.path), { recursive: true });
    writeFileAtomic(target.path, text);
    logLedgerEventOrWarn('leap-ledger', target.stateDir, target.env, { action: 'init', title: plan.title, file: target.path }, { issue: target.issue, step: null });
    return { ledger: target.path, steps: plan.steps.length };
  } finally {
    lock.release();
  }
}

// A leaf's role from its name (CONTRACT section 4, leap-role), never a guess; and which roles run read-only.
import { UsageError, showValue } from './errors.js';
import type { AgentRole } from './plugins.js';

/** Roles that judge or plan: their agents run read-only (no edit tools, read-only sandboxes). */
export const READ_ONLY_ROLES: ReadonlySet<AgentRole> = new Set<AgentRole>(['verifier', 'reviewer', 'planner']);
export const isReadOnlyRole = (role: AgentRole): boolean => READ_ONLY_ROLES.has(role);

type Phase = 'red' | 'green' | 'refactor' | 'plan' | 'build' | 'review';

/** `ball`: the ball a LEAP leaf builds or reviews; `family`: a review leaf's reviewer's model family. */
export type LeafRole = { actor: AgentRole; phase: Phase; attempt: number; ball?: string; family?: string };

const TDD_VERBS: Record<string, AgentRole> = { develop: 'developer', verify: 'verifier', verdict: 'verifier' };
const TDD_PHASES = new Set(['red', 'green', 'refactor']);
const ID = /^[A-Za-z0-9][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]+)*$/;

/** Derive actor, phase and attempt from `VERB-PHASE[-N]`, `plan[-N]`, `build-BALL-N` or `review-BALL-FAMILY`. */
export function leafRole(name: string): LeafRole {
  const parts = name.split('-');
  const verb = parts[0] ?? '';
  const fail = (): never => {
    throw new UsageError(
      'Expected a leaf name of the form develop|verify|verdict-red|green|refactor[-N], plan[-N], ' +
        `build-BALL-N or review-BALL-FAMILY, got ${showValue(name)}`,
    );
  };
  const attemptOf = (text: string | undefined): number => {
    if (text === undefined) return 1;
    if (!/^[1-9][0-9]{0,5}$/.test(text)) fail();
    return Number(text);
  };
  const actor = TDD_VERBS[verb];
  if (actor !== undefined) {
    const phase = parts[1];
    if (phase === undefined || !TDD_PHASES.has(phase) || parts.length > 3) fail();
    return { actor, phase: phase as Phase, attempt: attemptOf(parts[2]) };
  }
  if (verb === 'plan') {
    if (parts.length > 2) fail();
    return { actor: 'planner', phase: 'plan', attempt: attemptOf(parts[1]) };
  }
  if ((verb === 'build' || verb === 'review') && parts.length >= 3) {
    const last = parts[parts.length - 1] ?? '';
    const ball = parts.slice(1, -1).join('-');
    if (!ID.test(ball) || !/^[A-Za-z0-9_.]+$/.test(last)) fail();
    if (verb === 'build') return { actor: 'builder', phase: 'build', attempt: attemptOf(last), ball };
    return { actor: 'reviewer', phase: 'review', attempt: 1, ball, family: last };
  }
  return fail();
}

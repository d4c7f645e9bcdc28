import type { AgentRole } from './plugins.js';

/** Roles that judge or plan: their agents run read-only (no edit tools, read-only sandboxes). */
export const READ_ONLY_ROLES: ReadonlySet<AgentRole> = new Set<AgentRole>(['verifier', 'reviewer', 'planner']);

export const isReadOnlyRole = (role: AgentRole): boolean => READ_ONLY_ROLES.has(role);

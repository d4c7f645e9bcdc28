// The rules of CONTRACT section 7 between the parts of a slice, all reported at once: unique ids
// that can name branches, known dependencies, no cycle, one write spine, disjoint scopes whose
// paths stay inside the repository. They read the slice loosely, so a part the schema refused
// does not hide the other parts' violations.
import { cycleIndices } from './plan-waves.js';
import { isPlainPath, normalizeScopePath, scopePathProblem } from './scope-path.js';
import { ID_PATTERN } from './slice-id.js';
import type { Violation } from './violation.js';

/** Ball ids the engine's own branch and files use under `leap/SLICE/` and `.leap/SLICE/`. */
export const RESERVED_BALL_IDS: readonly string[] = ['spine', 'run.json', 'record.json', 'engine.lock'];

/** What the rules read of a ball: whatever of its fields has the right type. */
interface LooseBall {
  index: number;
  id: string | undefined;
  deps: unknown[];
  scope: unknown[];
  proof: Record<string, unknown> | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function looseBalls(slice: Record<string, unknown>): LooseBall[] {
  const balls = Array.isArray(slice.balls) ? slice.balls : [];
  const out: LooseBall[] = new Array(balls.length);
  for (let index = 0; index < balls.length; index++) {
    const ball: unknown = balls[index];
    const b = isObject(ball) ? ball : {};
    out[index] = {
      index,
      id: typeof b.id === 'string' ? b.id : undefined,
      deps: Array.isArray(b.deps) ? b.deps : [],
      scope: Array.isArray(b.scope) ? b.scope : [],
      proof: isObject(b.proof) ? b.proof : undefined,
    };
  }
  return out;
}

/** Why `id` cannot be the last part of a git branch name, or null. */
export function refNameProblem(id: string): string | null {
  if (id.includes('..')) return 'contains ".."';
  if (id.endsWith('.')) return 'ends with "."';
  if (id.endsWith('.lock')) return 'ends with ".lock"';
  return null;
}

// Returns each id's first ball, which the dependency rules read.
function idRules(slice: Record<string, unknown>, balls: LooseBall[], out: Violation[]): Map<string, number> {
  // An id the schema refused is reported there, once.
  if (typeof slice.id === 'string' && ID_PATTERN.test(slice.id)) {
    const why = refNameProblem(slice.id);
    if (why !== null) out.push({ rule: 'id-as-branch', message: `slice id ${JSON.stringify(slice.id)} cannot name the branches leap/${slice.id}/...: it ${why}`, balls: [], path: 'id' });
  }
  const first = new Map<string, number>();
  for (let i = 0; i < balls.length; i++) {
    const ball = balls[i] as LooseBall;
    if (ball.id === undefined) continue;
    const seen = first.get(ball.id);
    if (seen !== undefined) {
      out.push({ rule: 'unique-ids', message: `ball id ${JSON.stringify(ball.id)} is used twice: balls[${seen}] and balls[${ball.index}]`, balls: [ball.id], path: `balls[${ball.index}].id` });
      continue;
    }
    first.set(ball.id, ball.index);
    if (!ID_PATTERN.test(ball.id)) continue;
    const why = refNameProblem(ball.id);
    if (why !== null) out.push({ rule: 'id-as-branch', message: `ball id ${JSON.stringify(ball.id)} cannot name the branch leap/SLICE/${ball.id}: it ${why}`, balls: [ball.id], path: `balls[${ball.index}].id` });
    if (RESERVED_BALL_IDS.includes(ball.id)) out.push({ rule: 'reserved-id', message: `ball id ${JSON.stringify(ball.id)} is reserved for the engine (${RESERVED_BALL_IDS.join(', ')})`, balls: [ball.id], path: `balls[${ball.index}].id` });
  }
  return first;
}

function depRules(balls: LooseBall[], first: ReadonlyMap<string, number>, out: Violation[]): void {
  for (let i = 0; i < balls.length; i++) {
    const ball = balls[i] as LooseBall;
    for (let j = 0; j < ball.deps.length; j++) {
      const dep = ball.deps[j];
      if (typeof dep !== 'string' || first.has(dep)) continue;
      out.push({ rule: 'known-deps', message: `${ballName(ball)} depends on ${JSON.stringify(dep)}, which is not a ball of this slice`, balls: idsOf(ball), path: `balls[${ball.index}].deps[${j}]` });
    }
  }
  // A ball whose id another ball took first is not a node: its id is reported as a duplicate.
  const nodeAt = (i: number): readonly unknown[] => {
    const ball = balls[i] as LooseBall;
    return ball.id !== undefined && first.get(ball.id) === i ? ball.deps : [];
  };
  const indexOf = (id: unknown): number => (typeof id === 'string' ? first.get(id) ?? -1 : -1);
  for (const cycle of cycleIndices(balls.length, nodeAt, indexOf)) {
    const ids = cycle.map((i) => (balls[i] as LooseBall).id as string);
    const path = [...ids, ids[0]].map((id) => JSON.stringify(id)).join(' -> ');
    out.push({ rule: 'no-cycle', message: `dependency cycle: ${path} (each depends on the next)`, balls: ids, path: `balls[${cycle[0]}].deps` });
  }
}

function spineRule(slice: Record<string, unknown>, balls: LooseBall[], out: Violation[]): void {
  if (typeof slice.spine !== 'string' || slice.spine === '') return;
  const named = balls.filter((b) => b.id === slice.spine);
  if (slice.spine === 'integrator' && named.length > 0) {
    out.push({ rule: 'one-spine', message: 'spine "integrator" names two writers: the integrator and the ball "integrator"; rename the ball', balls: ['integrator'], path: 'spine' });
  } else if (slice.spine !== 'integrator' && named.length === 0) {
    out.push({ rule: 'one-spine', message: `spine ${JSON.stringify(slice.spine)} is neither "integrator" nor a ball of this slice`, balls: [], path: 'spine' });
  }
}

function ballName(ball: LooseBall): string {
  return ball.id === undefined ? `balls[${ball.index}]` : `ball ${JSON.stringify(ball.id)}`;
}

// Names and field paths are built only for a violation: a slice of a thousand balls has none.
function idsOf(ball: LooseBall): string[] {
  return ball.id === undefined ? [] : [ball.id];
}

// The file a scope path names: normalised, and lowercased where case folds. Unicode is compared in
// one form (NFC) everywhere: "é" written as one code point or as e and an accent reads the same to
// every reviewer, and is one file on macOS; two balls never own it under two spellings.
function fileKey(path: string, foldCase: boolean): string | null {
  const plain = isPlainPath(path);
  if (!plain && scopePathProblem(path) !== null) return null;
  const normal = plain ? path : normalizeScopePath(path).normalize('NFC');
  return foldCase ? normal.toLowerCase() : normal;
}

// How `ball` first spelled the file `key`: looked up again only for a violation.
function firstSpelling(ball: LooseBall, key: string, foldCase: boolean): string {
  for (const entry of ball.scope) {
    const path = isObject(entry) ? entry.path : undefined;
    if (typeof path === 'string' && path !== '' && fileKey(path, foldCase) === key) return path;
  }
  return key;
}

function scopeRules(balls: LooseBall[], foldCase: boolean, out: Violation[]): void {
  const owners = new Map<string, LooseBall>();
  for (let i = 0; i < balls.length; i++) {
    const ball = balls[i] as LooseBall;
    for (let j = 0; j < ball.scope.length; j++) {
      const entry = ball.scope[j];
      const path = isObject(entry) ? entry.path : undefined;
      if (typeof path !== 'string' || path === '') continue;
      const key = fileKey(path, foldCase);
      if (key === null) {
        out.push({ rule: 'scope-path', message: `${ballName(ball)}: scope path ${JSON.stringify(path)} ${scopePathProblem(path)}`, balls: idsOf(ball), path: `balls[${ball.index}].scope[${j}].path` });
        continue;
      }
      const owner = owners.get(key);
      if (owner === undefined) {
        owners.set(key, ball);
        continue;
      }
      const at = `balls[${ball.index}].scope[${j}].path`;
      const first = firstSpelling(owner, key, foldCase);
      const normal = normalizeScopePath(path);
      if (owner === ball) {
        out.push({ rule: 'disjoint-scopes', message: `${ballName(ball)} lists the file ${JSON.stringify(normal)} twice (as ${JSON.stringify(first)} and ${JSON.stringify(path)})`, balls: idsOf(ball), path: at });
      } else {
        const other = owner.id === undefined ? `balls[${owner.index}]` : JSON.stringify(owner.id);
        const spelled = first === path ? '' : ` (as ${JSON.stringify(first)} and ${JSON.stringify(path)}${foldCase && normalizeScopePath(first) !== normal ? ', one file where case is folded' : ''})`;
        out.push({ rule: 'disjoint-scopes', message: `balls ${other} and ${ball.id === undefined ? `balls[${ball.index}]` : JSON.stringify(ball.id)} share the file ${JSON.stringify(normalizeScopePath(first))}${spelled}`, balls: [...idsOf(owner), ...idsOf(ball)], path: at });
      }
    }
  }
}

function entryRules(balls: LooseBall[], out: Violation[]): void {
  for (let i = 0; i < balls.length; i++) {
    const ball = balls[i] as LooseBall;
    for (let j = 0; j < ball.scope.length; j++) {
      const entry = ball.scope[j];
      const lines = isObject(entry) && Array.isArray(entry.lines) ? (entry.lines as unknown[]) : undefined;
      if (lines === undefined) continue;
      for (let k = 0; k < lines.length; k++) {
        const range = lines[k];
        if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' && range[0] > range[1]) {
          out.push({ rule: 'lines', message: `${ballName(ball)}: line range [${range[0]}, ${range[1]}] ends before it starts`, balls: idsOf(ball), path: `balls[${ball.index}].scope[${j}].lines[${k}]` });
        }
      }
    }
    const argv = ball.proof?.argv;
    if (Array.isArray(argv) && argv[0] === '') out.push({ rule: 'proof', message: `${ballName(ball)}: proof.argv[0] is empty: it names the program to run`, balls: idsOf(ball), path: `balls[${ball.index}].proof.argv[0]` });
    const metric = ball.proof?.metric;
    if (!Array.isArray(metric) || metric.length < 2) continue;
    const fields = new Set<string>();
    metric.forEach((m: unknown, k) => {
      const field = isObject(m) ? m.field : undefined;
      if (typeof field !== 'string') return;
      if (fields.has(field)) out.push({ rule: 'proof', message: `${ballName(ball)}: metric field ${JSON.stringify(field)} is named twice`, balls: idsOf(ball), path: `balls[${ball.index}].proof.metric[${k}].field` });
      fields.add(field);
    });
  }
}

function baseRule(slice: Record<string, unknown>, out: Violation[]): void {
  const base = slice.base;
  if (typeof base !== 'string' || base === '') return;
  if (base.startsWith('-')) out.push({ rule: 'base', message: `base ${JSON.stringify(base)} starts with "-": git would read it as an option, not a commit`, balls: [], path: 'base' });
  else if (/[\0-\x1f\x7f]/.test(base)) out.push({ rule: 'base', message: `base ${JSON.stringify(base)} holds a control character, which no commit-ish does`, balls: [], path: 'base' });
}

/** Every violation of the rules between the parts of `slice` (any value; a non-object has none). */
export function sliceRuleViolations(slice: unknown, options: { foldCase: boolean }): Violation[] {
  if (!isObject(slice)) return [];
  const balls = looseBalls(slice);
  const out: Violation[] = [];
  const first = idRules(slice, balls, out);
  depRules(balls, first, out);
  spineRule(slice, balls, out);
  scopeRules(balls, options.foldCase, out);
  entryRules(balls, out);
  baseRule(slice, out);
  return out;
}

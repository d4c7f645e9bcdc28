// CONTRACT section 7's rules between a slice's parts, all reported at once: a part the schema refused hides no other.
import { walkGraph } from './plan-waves.js';
import { isPlainLowercasePath, isPlainPath, normalizeScopePath, scopePathProblem } from './scope-path.js';
import { ID_PATTERN, isObject, type Violation } from './violation.js';

// Ball ids the engine's own branch and files use under `leap/SLICE/` and `.leap/SLICE/`.
const RESERVED_BALL_IDS = ['spine', 'run.json', 'record.json', 'engine.lock'];
const RESERVED = new Set(RESERVED_BALL_IDS);

type Ids = readonly (string | undefined)[];
type Items = readonly unknown[];
const NO_ITEMS: Items = [];
const NO_FIELDS: Readonly<Record<string, unknown>> = {};

/** Why `id` cannot be the last part of a git branch name, or null. */
function refNameProblem(id: string): string | null {
  if (id.includes('..')) return 'contains ".."';
  if (id.endsWith('.')) return 'ends with "."';
  if (id.endsWith('.lock')) return 'ends with ".lock"';
  return null;
}

const idsOf = (ids: Ids, i: number): string[] => (ids[i] === undefined ? [] : [ids[i]]);

/** Ball i's violation: its message starts with the ball's name, its path with `balls[i]`. */
function ofBall(rule: string, ids: Ids, i: number, message: string, at: string): Violation {
  const name = ids[i] === undefined ? `balls[${i}]` : `ball ${JSON.stringify(ids[i])}`;
  return { rule, message: `${name}${message}`, balls: idsOf(ids, i), path: `balls[${i}]${at}` };
}

// Normalised, lowercased where case folds, NFC: two balls never own two spellings of one file (one on macOS).
function fileKey(path: string, foldCase: boolean): string | null {
  const plain = isPlainPath(path);
  if (!plain && scopePathProblem(path) !== null) return null;
  const normal = plain ? path : normalizeScopePath(path).normalize('NFC');
  return foldCase ? normal.toLowerCase() : normal;
}

function firstSpelling(scope: unknown, key: string, foldCase: boolean): string {
  if (!Array.isArray(scope)) return key;
  for (const entry of scope) {
    const path = isObject(entry) ? entry.path : undefined;
    if (typeof path === 'string' && path !== '' && fileKey(path, foldCase) === key) return path;
  }
  return key;
}

function idRules(slice: Record<string, unknown>, out: Violation[]): void {
  // An id the schema refused is reported there, once.
  if (typeof slice.id === 'string' && ID_PATTERN.test(slice.id)) {
    const why = refNameProblem(slice.id);
    const message = `slice id ${JSON.stringify(slice.id)} cannot name the branches leap/${slice.id}/...: it ${why}`;
    if (why !== null) out.push({ rule: 'id-as-branch', message, balls: [], path: 'id' });
  }
}

function ballIdRules(id: string, i: number, schemaValid: boolean, out: Violation[]): void {
  if (!schemaValid && !ID_PATTERN.test(id)) return;
  const why = id.includes('.') ? refNameProblem(id) : null;
  if (why !== null) {
    const message = `ball id ${JSON.stringify(id)} cannot name the branch leap/SLICE/${id}: it ${why}`;
    out.push({ rule: 'id-as-branch', message, balls: [id], path: `balls[${i}].id` });
  }
  if (RESERVED.has(id)) {
    const message = `ball id ${JSON.stringify(id)} is reserved for the engine (${RESERVED_BALL_IDS.join(', ')})`;
    out.push({ rule: 'reserved-id', message, balls: [id], path: `balls[${i}].id` });
  }
}

function linesRule(lines: unknown[], ids: Ids, i: number, j: number, out: Violation[]): void {
  for (let k = 0; k < lines.length; k++) {
    const range = lines[k];
    if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' && range[0] > range[1]) {
      const message = `: line range [${range[0]}, ${range[1]}] ends before it starts`;
      out.push(ofBall('lines', ids, i, message, `.scope[${j}].lines[${k}]`));
    }
  }
}

function proofRules(proof: Record<string, unknown>, ids: Ids, i: number, out: Violation[]): void {
  const argv = proof.argv;
  if (Array.isArray(argv) && argv[0] === '')
    out.push(ofBall('proof', ids, i, ': proof.argv[0] is empty: it names the program to run', '.proof.argv[0]'));
  const metric = proof.metric;
  if (!Array.isArray(metric) || metric.length < 2) return;
  const fields = new Set<string>();
  metric.forEach((m: unknown, k) => {
    const field = isObject(m) ? m.field : undefined;
    if (typeof field !== 'string') return;
    const twice = `: metric field ${JSON.stringify(field)} is named twice`;
    if (fields.has(field)) out.push(ofBall('proof', ids, i, twice, `.proof.metric[${k}].field`));
    fields.add(field);
  });
}

function sharedFile(balls: Items, ids: Ids, owner: number, i: number, j: number, path: string, fold: boolean) {
  const ownerBall = balls[owner];
  const key = fileKey(path, fold) as string;
  const first = firstSpelling(isObject(ownerBall) ? ownerBall.scope : undefined, key, fold);
  const normal = normalizeScopePath(path);
  const both = `as ${JSON.stringify(first)} and ${JSON.stringify(path)}`;
  if (owner === i) {
    const twice = ` lists the file ${JSON.stringify(normal)} twice (${both})`;
    return ofBall('disjoint-scopes', ids, i, twice, `.scope[${j}].path`);
  }
  const name = (b: number) => (ids[b] === undefined ? `balls[${b}]` : JSON.stringify(ids[b]));
  const folded = fold && normalizeScopePath(first) !== normal ? ', one file where case is folded' : '';
  const spelled = `${JSON.stringify(normalizeScopePath(first))}${first === path ? '' : ` (${both}${folded})`}`;
  const message = `balls ${name(owner)} and ${name(i)} share the file ${spelled}`;
  const named = [...idsOf(ids, owner), ...idsOf(ids, i)];
  return { rule: 'disjoint-scopes', message, balls: named, path: `balls[${i}].scope[${j}].path` };
}

function spineRule(slice: Record<string, unknown>, ids: Ids, out: Violation[]): void {
  if (typeof slice.spine !== 'string' || slice.spine === '') return;
  const named = ids.includes(slice.spine);
  if (slice.spine === 'integrator' && named) {
    const message = 'spine "integrator" names two writers: the integrator and the ball "integrator"; rename the ball';
    out.push({ rule: 'one-spine', message, balls: ['integrator'], path: 'spine' });
  } else if (slice.spine !== 'integrator' && !named) {
    const message = `spine ${JSON.stringify(slice.spine)} is neither "integrator" nor a ball of this slice`;
    out.push({ rule: 'one-spine', message, balls: [], path: 'spine' });
  }
}

function baseRule(slice: Record<string, unknown>, out: Violation[]): void {
  const base = slice.base;
  if (typeof base !== 'string' || base === '') return;
  const why = base.startsWith('-')
    ? 'starts with "-": git would read it as an option, not a commit'
    : /[\0-\x1f\x7f]/.test(base)
      ? 'holds a control character, which no commit-ish does'
      : null;
  if (why !== null) out.push({ rule: 'base', message: `base ${JSON.stringify(base)} ${why}`, balls: [], path: 'base' });
}

type RuleOptions = { foldCase: boolean | (() => boolean); schemaValid?: boolean };

/** Every violation of the rules between the parts of `slice` (any value), in rule order; `depth[i]`: ball i's wave.
 * `foldCase`, a function asked once if a path has a case-folding letter; `schemaValid`: every id is well formed. */
export function checkSliceRules(slice: unknown, options: RuleOptions) {
  if (!isObject(slice)) return { violations: [], depth: new Int32Array(0) };
  const balls: Items = Array.isArray(slice.balls) ? slice.balls : NO_ITEMS;
  const n = balls.length;
  const out: Violation[] = [];
  const scopeOut: Violation[] = [];
  const entryOut: Violation[] = [];
  let fold = typeof options.foldCase === 'boolean' ? options.foldCase : undefined;
  const folds = (): boolean => (fold ??= (options.foldCase as () => boolean)());
  const schemaValid = options.schemaValid === true;
  // Read once: in the bundled bin, scope-path.ts is another chunk, whose exports are getters.
  const plainLowercase = isPlainLowercasePath;
  idRules(slice, out);

  const ids: (string | undefined)[] = new Array(n);
  const depsOf: Items[] = new Array(n);
  // Each id's first ball, which the dependencies name; a ball whose id another took first is no node.
  const first = new Map<string, number>();
  const isNode = new Uint8Array(n);
  const owners = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    // Written out, not isObject calls: a small function called thousands of times pages in V8's optimiser (megabytes).
    const raw = balls[i];
    const ball = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : NO_FIELDS;
    const id = typeof ball.id === 'string' ? ball.id : undefined;
    ids[i] = id;
    depsOf[i] = Array.isArray(ball.deps) ? ball.deps : NO_ITEMS;
    if (id !== undefined) {
      const seen = first.get(id);
      if (seen !== undefined) {
        const message = `ball id ${JSON.stringify(id)} is used twice: balls[${seen}] and balls[${i}]`;
        out.push({ rule: 'unique-ids', message, balls: [id], path: `balls[${i}].id` });
      } else {
        first.set(id, i);
        isNode[i] = 1;
        ballIdRules(id, i, schemaValid, out);
      }
    }
    const scope = ball.scope;
    if (Array.isArray(scope)) {
      for (let j = 0; j < scope.length; j++) {
        const entry = scope[j] as Record<string, unknown> | null;
        if (typeof entry !== 'object' || entry === null) continue;
        const path = entry.path;
        if (typeof path === 'string' && path !== '') {
          const key = plainLowercase(path) ? path : fileKey(path, folds());
          if (key === null) {
            scopeOut.push(badScopePath(ids, i, j, path));
          } else {
            const owner = owners.get(key);
            if (owner === undefined) owners.set(key, i);
            else scopeOut.push(sharedFile(balls, ids, owner, i, j, path, folds()));
          }
        }
        if (Array.isArray(entry.lines)) linesRule(entry.lines, ids, i, j, entryOut);
      }
    }
    const proof = ball.proof;
    if (typeof proof === 'object' && proof !== null) proofRules(proof as Record<string, unknown>, ids, i, entryOut);
    if (slice.require_live === true && ball.live === undefined) entryOut.push(noLive(ids, i));
  }
  const depth = depRules(ids, depsOf, first, isNode, out);
  spineRule(slice, ids, out);
  for (const v of scopeOut) out.push(v);
  for (const v of entryOut) out.push(v);
  baseRule(slice, out);
  return { violations: out, depth };
}

// `start[i]..start[i+1]` in `edges` are ball i's dependencies; if all point to earlier balls, no walk is needed.
function depRules(ids: Ids, depsOf: Items[], first: Map<string, number>, isNode: Uint8Array, out: Violation[]) {
  const n = ids.length;
  const start = new Int32Array(n + 1);
  const edges: number[] = [];
  const depth = new Int32Array(n);
  let inOrder = true;
  for (let i = 0; i < n; i++) {
    start[i] = edges.length;
    const deps = depsOf[i] as Items;
    for (let k = 0; k < deps.length; k++) {
      const dep = deps[k];
      if (typeof dep !== 'string') continue;
      const j = first.get(dep);
      if (j === undefined) {
        const unknown = ` depends on ${JSON.stringify(dep)}, which is not a ball of this slice`;
        out.push(ofBall('known-deps', ids, i, unknown, `.deps[${k}]`));
      } else if (isNode[i] === 1) {
        edges.push(j);
        if (j >= i) inOrder = false;
        else if ((depth[j] as number) >= (depth[i] as number)) depth[i] = (depth[j] as number) + 1;
      }
    }
  }
  start[n] = edges.length;
  const walked = inOrder ? { cycles: [], depth } : walkGraph(n, start, edges);
  for (const cycle of walked.cycles) {
    const around = cycle.map((i) => ids[i] as string);
    const path = [...around, around[0]].map((id) => JSON.stringify(id)).join(' -> ');
    const message = `dependency cycle: ${path} (each depends on the next)`;
    out.push({ rule: 'no-cycle', message, balls: around, path: `balls[${cycle[0]}].deps` });
  }
  return walked.depth;
}

function badScopePath(ids: Ids, i: number, j: number, path: string): Violation {
  const message = `: scope path ${JSON.stringify(path)} ${scopePathProblem(path)}`;
  return ofBall('scope-path', ids, i, message, `.scope[${j}].path`);
}

function noLive(ids: Ids, i: number): Violation {
  const why = 'a live proof runs the real surface: the built command, the server, the page';
  const message = ` has no "live" proof, and the slice says "require_live": true (${why})`;
  return ofBall('require-live', ids, i, message, '.live');
}

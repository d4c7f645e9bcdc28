// The JSON Schema check by ajv's generated validators: an invalid slice is rechecked field by field for every problem.
import { validateBalls, validateSliceShell } from './slice-validators.generated.js';
import { NON_EMPTY_PATTERN, fieldPath, isObject, showFound, type Violation } from './violation.js';

type AjvError = NonNullable<typeof validateBalls.errors>[number];

const FIELDS: Record<string, string[]> = {
  slice: ['$schema', 'id', 'base', 'spine', 'balls', 'live', 'require_live'],
  ball: ['id', 'goal', 'spec', 'scope', 'proof', 'rollback', 'deps', 'live', 'red_first'],
  scope: ['path', 'sha256', 'symbols', 'lines'],
  proof: ['argv', 'metric'],
  metric: ['field', 'better'],
  live: ['argv', 'timeout_s', 'network'],
};

const EXPECTED_BY_FIELD: Record<string, string> = {
  id: 'an id (1 to 64 of a-z 0-9 . _ -, starting with a letter or digit)',
  sha256: 'a sha256 (64 lowercase hex digits), or null for a file the ball creates',
  better: '"higher" or "lower"',
};

function valueAt(root: unknown, pointer: string): unknown {
  let at = root;
  for (const part of pointer.split('/').slice(1))
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[part] : undefined;
  return at;
}

function objectKind(pointer: string): string {
  const kind = /\/(metric|scope)\/\d+$|\/(proof|live)$/.exec(pointer);
  return pointer === '' ? 'slice' : (kind?.[1] ?? kind?.[2] ?? 'ball');
}

const KIND_NAMES: Record<string, string> = { scope: 'scope entry', metric: 'metric field', live: 'live proof' };

function unknownField(kind: string, shown: string): string {
  return `unknown field ${shown}: a ${KIND_NAMES[kind] ?? kind} has only ${(FIELDS[kind] ?? []).join(', ')}`;
}

const [SPAN, LINE] = ['[from, to]', 'a line number (an integer of at least 1)'];
const FIXED: Record<string, string> = {
  maxItems: SPAN,
  items: SPAN,
  exclusiveMinimum: LINE,
  minimum: LINE,
  maximum: LINE,
};

function expectation(error: AjvError, field: string): string {
  const p = error.params;
  const byField = EXPECTED_BY_FIELD[field];
  if (error.keyword === 'type') return byField ?? `${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type)}`;
  if (error.keyword === 'pattern')
    return p.pattern === NON_EMPTY_PATTERN
      ? 'a non-empty string'
      : (byField ?? `a value matching ${String(p.pattern)}`);
  if (error.keyword === 'enum') return byField ?? `one of ${JSON.stringify(p.allowedValues)}`;
  if (error.keyword === 'minItems')
    return /^\d+$/.test(field) ? SPAN : `at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
  return FIXED[error.keyword] ?? `a value the schema accepts (${error.keyword})`;
}

function describe(root: unknown, base: string, error: AjvError): { path: string; message: string } {
  const pointer = base + error.instancePath;
  if (error.keyword === 'required') {
    const name = String(error.params.missingProperty);
    return { path: fieldPath(`${pointer}/${name}`), message: `missing the required field "${name}"` };
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(error.params.additionalProperty);
    return { path: fieldPath(`${pointer}/${name}`), message: unknownField(objectKind(pointer), `"${name}"`) };
  }
  const field = pointer.slice(pointer.lastIndexOf('/') + 1);
  const found = showFound(valueAt(root, pointer));
  return { path: fieldPath(pointer), message: `expected ${expectation(error, field)}, found ${found}` };
}

// A valid object of each kind: a checked field replaces its own, so the first problem found is that field's.
const SCOPE = { path: 'a', sha256: null };
const PROOF = { argv: ['a'] };
const LIVE = { argv: ['a'], timeout_s: 1 };
const BALL = { id: 'a', goal: 'g', spec: '', scope: [SCOPE], proof: PROOF, rollback: '', deps: [] };
const SLICE = { id: 'a', base: 'HEAD', spine: 'integrator', balls: [0] };
const TEMPLATES: Record<string, Record<string, unknown>> = {
  slice: SLICE,
  ball: BALL,
  scope: SCOPE,
  proof: PROOF,
  live: LIVE,
};
const OPTIONAL = new Set(['$schema', 'symbols', 'lines', 'metric', 'red_first', 'live', 'require_live', 'network']);

/** The first problem of a value as one part of a slice, its path relative to that part; null when it has none. */
type Check = (value: unknown) => AjvError | null;

// A ball, scope entry or proof is checked inside a valid ball of its own, its problem's path taken back out of it.
function inBall(prefix: string, place: (value: unknown) => unknown): Check {
  return (value) => {
    if (validateBalls([place(value)])) return null;
    const error = validateBalls.errors?.[0];
    return error === undefined ? null : { ...error, instancePath: error.instancePath.slice(prefix.length) };
  };
}

// A ball's scope entries and proof are parts of their own: here only their shape is the ball's.
function shapeOnly(ball: unknown): unknown {
  if (!isObject(ball)) return ball;
  const scope = Array.isArray(ball.scope) ? ball.scope.map(() => SCOPE) : ball.scope;
  const live = isObject(ball.live) ? { live: LIVE } : {};
  return { ...ball, scope, proof: isObject(ball.proof) ? PROOF : ball.proof, ...live };
}

const CHECKS: Record<string, Check> = {
  slice: (value) => (validateSliceShell(value) ? null : (validateSliceShell.errors?.[0] ?? null)),
  ball: inBall('/0', shapeOnly),
  scope: inBall('/0/scope/0', (entry) => ({ ...BALL, scope: [entry] })),
  proof: inBall('/0/proof', (proof) => ({ ...BALL, proof })),
  live: inBall('/0/live', (live) => ({ ...BALL, live })),
};

function push(out: Violation[], path: string, message: string, balls: string[]): void {
  const ball = balls[0] === undefined ? '' : ` (ball ${JSON.stringify(balls[0])})`;
  out.push({ rule: 'schema', message: `${path === '' ? '' : `${path}${ball}: `}${message}`, balls, path });
}

/** Every field's schema problem (the first within a field's value); none when the slice matches its JSON Schema. */
export function schemaProblems(value: unknown): Violation[] {
  if (validateSliceShell(value) && validateBalls((value as { balls: unknown }).balls)) return [];
  const out: Violation[] = [];
  const objectProblems = (kind: string, object: unknown, base: string, balls: string[]): void => {
    const check = CHECKS[kind] as Check;
    if (check(object) === null) return;
    if (!isObject(object)) {
      const what = kind === 'scope' ? 'a scope entry' : `a ${kind}`;
      push(out, fieldPath(base), `expected ${what} (an object), found ${showFound(object)}`, balls);
      return;
    }
    const fields = FIELDS[kind] ?? [];
    for (const key of Object.keys(object)) {
      const pointer = `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!fields.includes(key)) push(out, fieldPath(pointer), unknownField(kind, JSON.stringify(key)), balls);
    }
    for (const key of fields) {
      if (!Object.hasOwn(object, key)) {
        if (!OPTIONAL.has(key))
          push(out, fieldPath(`${base}/${key}`), `missing the required field ${JSON.stringify(key)}`, balls);
        continue;
      }
      const error = check({ ...TEMPLATES[kind], [key]: object[key] });
      if (error === null) continue;
      const { path, message } = describe(value, base, error);
      push(out, path, message, balls);
    }
  };
  objectProblems('slice', isObject(value) && isObject(value.live) ? { ...value, live: LIVE } : value, '', []);
  if (isObject(value) && isObject(value.live)) objectProblems('live', value.live, '/live', []);
  const balls = isObject(value) && Array.isArray(value.balls) ? value.balls : [];
  balls.forEach((ball: unknown, i) => {
    const ids = isObject(ball) && typeof ball.id === 'string' ? [ball.id] : [];
    objectProblems('ball', ball, `/balls/${i}`, ids);
    if (!isObject(ball)) return;
    if (Array.isArray(ball.scope))
      for (const [j, entry] of (ball.scope as unknown[]).entries())
        objectProblems('scope', entry, `/balls/${i}/scope/${j}`, ids);
    if (ball.proof !== undefined) objectProblems('proof', ball.proof, `/balls/${i}/proof`, ids);
    if (isObject(ball.live)) objectProblems('live', ball.live, `/balls/${i}/live`, ids);
  });
  return out;
}

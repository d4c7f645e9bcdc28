import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { appendEvent, createEvent, openEventLog, FileFormatError } from '../src/index.js';
import { formatEventLine } from '../src/events/event-log.js';
import { EVENT_KINDS } from '../src/events/event-log.js';
import { parseEventLine, parseEvents, readEvents } from '../src/events/event-log.js';
import { coreJsonSchemas } from '../src/validator-module.js';
import { eventSchema, renderSchemaFile, compileJsonSchema } from '../src/schemas.js';
import { loadPublishedSchema, validateJson } from '../src/validate-json.js';

const context = { issue: 7, step: 'Add the user\'s "name" $(x) `y` 🦀', skillCommit: 'abc123' };

// ---
const create = suite('createEvent');
create('stamps ts with milliseconds and copies the run context', () => {
  const event = createEvent(
    'launch',
    { leaf: 'develop-red', actor: 'developer', phase: 'red', attempt: 1, pid: 42, cmd: ['claude', '-p'] },
    context,
  );
  assert.match(event.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is(event.event, 'launch');
  assert.is(event.issue, 7);
  assert.is(event.step, context.step);
  assert.is(event.skill_commit, 'abc123');
  assert.ok(eventSchema.safeParse(event).success);
  assert.is(formatEventLine(event).split('\n').length, 2, 'one line, newline-terminated');
});
create('every kind has a schema, and a well-formed example of each validates', () => {
  const examples = [
    createEvent('launch', { leaf: 'a', actor: null, phase: null, attempt: null, pid: 1, cmd: [] }, context),
    createEvent(
      'exit',
      { leaf: 'a', code: 2, status: 'killed-timeout', duration_ms: 5, signal: 'SIGTERM', leaf_code: null },
      context,
    ),
    createEvent('verdict', { phase: 'green', verdict: 'PASS', reason: 'ok' }, context),
    createEvent('mark', { name: 'step-start', anchor: null }, context),
    createEvent('tick', { action: 'tick', title: 't', commit: 'abc' }, context),
    createEvent('bail', { cause: 'needs-user', class: 'process' }, context),
    createEvent('stop', { mode: 'now', action: 'requested' }, context),
    createEvent('ball', { slice: 's', ball: 'b', state: 'ready' }, context),
    createEvent('round', { slice: 's', ball: 'b', round: 4 }, context),
    createEvent('receipt', { slice: 's', ball: 'b', value: -1, candidate: null, evidence: 'e' }, context),
    createEvent('review', { candidate: 'h', reviewer: 'r', family: 'openai', verdict: 'refuse', value: -1 }, context),
    createEvent('merge', { slice: 's', ball: 'b', commit: 'c', candidate: 'h' }, context),
    createEvent(
      'usage',
      {
        leaf: 'verify-green',
        agent: 'codex',
        family: 'openai',
        model: null,
        input_tokens: 1200,
        output_tokens: 80,
        cost_usd: null,
      },
      context,
    ),
    createEvent(
      'suite',
      {
        tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
        command: 'npm test',
        code: 1,
        duration_ms: 1520,
        phase: 'red',
      },
      context,
    ),
    createEvent(
      'fallover',
      {
        leaf: 'develop-red',
        role: 'developer',
        agent: 'claude',
        family: 'anthropic',
        cause: 'rate-limit',
        message: 'API Error: 429',
        next: 'gemini',
      },
      context,
    ),
  ];
  assert.equal(examples.map((e) => e.event).sort(), [...EVENT_KINDS].sort());
  for (const e of examples) assert.ok(eventSchema.safeParse(e).success, e.event);
  assert.not.ok(eventSchema.safeParse({ ...examples[9], value: 2 }).success, 'a receipt is -1, 0 or 1');
  assert.not.ok(eventSchema.safeParse({ ...examples[1], status: 'finished' }).success);
  assert.not.ok(eventSchema.safeParse({ ...examples[3], ts: '2026-01-01T00:00:00Z' }).success, 'ts needs milliseconds');
  assert.not.ok(eventSchema.safeParse({ ...examples[12], input_tokens: -1 }).success, 'tokens are never negative');
  assert.not.ok(eventSchema.safeParse({ ...examples[12], cost_usd: 'free' }).success, 'a cost is a number or null');
  assert.not.ok(
    eventSchema.safeParse({ ...examples[14], cause: 'tired' }).success,
    'a fall-over is for a quota, a rate limit or an overload',
  );
  assert.ok(eventSchema.safeParse({ ...examples[14], next: null }).success, 'next is null when the list ran out');
  // The reader's generated validators agree with the zod schema they come from, case for case.
  const bad = [
    { ...examples[9], value: 2 },
    { ...examples[1], status: 'finished' },
    { ...examples[3], ts: '2026-01-01T00:00:00Z' },
    { ...examples[12], input_tokens: -1 },
    { ...examples[12], cost_usd: 'free' },
    { ...examples[14], cause: 'tired' },
    { ...examples[0], step: undefined },
  ];
  for (const e of examples) assert.equal(parseEventLine(JSON.stringify(e)), { event: e }, e.event);
  for (const e of bad) {
    assert.not.ok(eventSchema.safeParse(e).success, JSON.stringify(e));
    assert.ok('problem' in parseEventLine(JSON.stringify(e)), JSON.stringify(e));
  }
  assert.equal(parseEventLine(JSON.stringify(bad[0])), {
    problem: 'receipt event: "value" must be equal to constant, got 2',
  });
  assert.equal(parseEventLine(JSON.stringify(bad[6])), {
    problem: 'launch event: expected a field "step", found none',
  });
  assert.equal(parseEventLine('{"event":"teleport","to":"mars"}'), { other: { event: 'teleport', to: 'mars' } });
});
create.run();

// ---
const append = suite('appendEvent');
append.after(cleanupTempDirs);
append('appends whole lines that read back as typed events, byte for byte', () => {
  const file = join(makeTempDir(), 'deep', 'events.jsonl');
  appendEvent(file, createEvent('mark', { name: 'a', anchor: 'x\ny' }, context));
  const log = openEventLog(file);
  log.append(createEvent('mark', { name: 'b', anchor: null }, context));
  log.close();
  const events = readEvents(file);
  assert.equal(
    events.map((r) => [r.line, r.event.event === 'mark' ? r.event.anchor : '']),
    [
      [1, 'x\ny'],
      [2, null],
    ],
  );
  assert.is(events[0]!.event.step, context.step);
});
append('after a torn last line, the next writer starts on a new line', () => {
  const file = join(makeTempDir(), 'events.jsonl');
  appendEvent(file, createEvent('mark', { name: 'a', anchor: null }, context));
  appendFileSync(file, '{"ts":"2026-');
  assert.equal(
    readEvents(file).map((r) => r.line),
    [1],
    'the torn line is skipped',
  );
  appendEvent(file, createEvent('mark', { name: 'b', anchor: null }, context));
  assert.throws(
    () => readEvents(file),
    (e: Error) => e instanceof FileFormatError && e.message.includes(':2:'),
    'a torn line that is no longer last is malformed',
  );
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.is(lines[2]!.startsWith('{"ts"'), true);
});
append('8 processes appending 2,000 events each at once: no torn, lost or interleaved line', async () => {
  const file = join(makeTempDir(), 'events.jsonl');
  const script = fileURLToPath(new URL('./fixtures/append-many.mjs', import.meta.url));
  const writers = Array.from(
    { length: 8 },
    (_, w) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, [script, file, String(w), '2000', String(w * 300)], { stdio: 'inherit' }).on(
          'exit',
          resolve,
        ),
      ),
  );
  assert.equal(await Promise.all(writers), Array(8).fill(0));
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'));
  const events = [...parseEvents(text, file)];
  assert.is(events.length, 16_000);
  for (let w = 0; w < 8; w++) {
    const mine = events
      .filter((r) => r.event.event === 'mark' && r.event.name === `w${w}`)
      .map((r) => (r.event as { anchor: string }).anchor);
    assert.is(mine.length, 2000, `writer ${w}`);
    assert.equal(
      mine.map((a) => Number.parseInt(a, 10)),
      Array.from({ length: 2000 }, (_, i) => i),
      `writer ${w} in order`,
    );
    assert.ok(mine.every((a) => a.length === String(Number.parseInt(a, 10)).length + w * 300));
  }
});
append.run();

// ---
const read = suite('readEvents');
read.after(cleanupTempDirs);
read('a missing log is empty; blank lines are skipped', () => {
  const dir = makeTempDir();
  assert.equal(readEvents(join(dir, 'none.jsonl')), []);
  const line = formatEventLine(createEvent('mark', { name: 'a', anchor: null }, context));
  assert.equal(
    [...parseEvents(`\n${line}\n  \n${line}`)].map((r) => r.line),
    [2, 5],
  );
});
read('a malformed line names its number; a schema mismatch names the field', () => {
  const good = formatEventLine(createEvent('mark', { name: 'a', anchor: null }, context));
  assert.throws(
    () => [...parseEvents(`${good}not json\n${good}`, 'ev.jsonl')],
    (e: Error) => e instanceof FileFormatError && e.message.startsWith('ev.jsonl:2: expected one JSON event'),
  );
  assert.throws(
    () => [...parseEvents(`${good}${good}{"event":"exit"}\n`, 'ev.jsonl')],
    (e: Error) => e.message === 'ev.jsonl:3: exit event: expected a field "ts", found none',
  );
  assert.throws(
    () => [...parseEvents('[]\n', 'ev.jsonl')],
    (e: Error) => e.message === 'ev.jsonl:1: expected a JSON object, got "[]"',
  );
  assert.throws(
    () => [...parseEvents('{"event":"teleport"}\n', 'ev.jsonl')],
    (e: Error) =>
      e.message.startsWith('ev.jsonl:1: "teleport" is not an event kind: expected one of bail, ball, exit,'),
  );
  assert.equal(
    [...parseEvents(`${good}{"event":"exit"}`)].length,
    1,
    'an invalid last line without newline is torn, skipped',
  );
  const dir = makeTempDir();
  writeFileSync(join(dir, 'e'), `${good}x\n`);
  assert.throws(
    () => readEvents(join(dir, 'e')),
    (e: Error) => e.message.startsWith(`${join(dir, 'e')}:2:`),
  );
  assert.throws(() => readEvents(dir), /EISDIR/);
});
read.run();

// ---
const schemas = suite('published JSON Schema');
schemas('the schemas/ files the build wrote match the zod schemas now (npm run generate)', () => {
  for (const [name, schema] of Object.entries(coreJsonSchemas())) {
    const built = readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8');
    assert.fixture(built, renderSchemaFile(schema), `${name} has drifted from the zod schema`);
    assert.equal(loadPublishedSchema(name), schema);
  }
});
schemas('ajv validates outside JSON against it, naming the source and the problem', async () => {
  const schema = loadPublishedSchema('events.schema.json');
  const event = createEvent('verdict', { phase: 'red', verdict: 'REJECT', reason: 'the test passes already' }, context);
  await validateJson(schema, JSON.parse(JSON.stringify(event)), 'x.json');
  try {
    await validateJson(schema, { ...event, verdict: 'MAYBE' }, 'x.json');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, FileFormatError);
    assert.match(
      (error as Error).message,
      /^x\.json: does not match https:\/\/leap\.dev\/schemas\/events\.schema\.json/,
    );
  }
  await assert.not.throws(async () =>
    validateJson(schema, { ...event, extra: 'loose objects keep extra fields' }, 'x.json'),
  );
  const validate = await compileJsonSchema(schema);
  assert.is(await compileJsonSchema(schema), validate, 'compiled once');
  assert.not.ok(validate({ event: 'mark' }));
  try {
    await validateJson({ type: 'string' }, 3, 'n.json');
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, 'n.json: does not match the schema: / must be string');
  }
});
schemas.run();

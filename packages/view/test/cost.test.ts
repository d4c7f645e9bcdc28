// Sums of usage: what a CLI did not report stays unknown, and is counted as unreported.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { breakDownCost, describeTotal, sumUsage } from '../src/cost.js';
import { foldRun } from '../src/fold-run.js';
import { parseLogText } from '../src/read-log.js';
import { formatTokens, formatUsd } from '../src/_text.js';
import { fixture } from './helpers.js';

const usageOf = (name: string) => foldRun(parseLogText(fixture(name)).records).usage;

// ---
const sums = suite('sumUsage and breakDownCost');

sums('nulls are never summed as zero: a sum with none reported is null, and the gaps are counted', () => {
  const total = sumUsage(usageOf('usage-nulls.jsonl'));
  assert.equal(total, {
    leaves: 3,
    input_tokens: 39312,
    output_tokens: 2433,
    cost_usd: 0.5123,
    unreported: { input_tokens: 1, output_tokens: 1, cost_usd: 2 },
    estimated: 0,
  });
  const none = sumUsage(usageOf('usage-nulls.jsonl').filter((u) => u.agent === 'gemini'));
  assert.equal([none.input_tokens, none.cost_usd, none.unreported.cost_usd], [null, null, 1]);
});

sums('per issue, per step and per slice', () => {
  const b = breakDownCost(usageOf('usage-nulls.jsonl'));
  assert.equal(
    b.byIssue.map((r) => [r.issue, r.total.leaves]),
    [[4, 3]],
  );
  assert.equal(
    b.byStep.map((r) => [r.step, r.total.cost_usd]),
    [['Parse "quoted" $(x) `words`', 0.5123]],
  );
  assert.equal(b.bySlice, []);
  const s = breakDownCost(usageOf('slice.jsonl'));
  assert.equal(
    s.bySlice.map((r) => [r.slice, r.total.leaves, r.total.input_tokens]),
    [['split-parser', 5, 49000]],
  );
  assert.equal(s.byIssue, []);
});

sums('describeTotal says what is unknown', () => {
  const fmt = { tokens: formatTokens, usd: formatUsd };
  assert.is(describeTotal(sumUsage([]), fmt), 'no usage reported yet');
  assert.is(
    describeTotal(sumUsage(usageOf('usage-nulls.jsonl')), fmt),
    '39,312 in / 2,433 out tokens, $0.51 over 3 leaves (2 of 3 leaves did not report cost; 1 did not report tokens)',
  );
  assert.is(
    describeTotal(sumUsage(usageOf('usage-nulls.jsonl').slice(0, 1)), fmt),
    '25,310 in / 1,822 out tokens, $0.51 over 1 leaf',
  );
});

sums(
  "an estimated cost (Codex, Gemini: the agents file's prices) is summed and said as estimated; one the CLI reported is not",
  () => {
    const fmt = { tokens: formatTokens, usd: formatUsd };
    const usage = (leaf: string, agent: string, cost: number, estimated?: boolean) =>
      JSON.stringify({
        ts: '2026-12-03T09:00:00.000Z',
        event: 'usage',
        issue: 1,
        step: 'A "step" $(x)',
        skill_commit: null,
        leaf,
        agent,
        family: null,
        model: null,
        input_tokens: 1000,
        output_tokens: 100,
        cost_usd: cost,
        ...(estimated === undefined ? {} : { cost_estimated: estimated }),
      });
    const log = `${[usage('develop-red', 'claude', 0.25), usage('verify-red', 'codex', 0.0015, true), usage('verify-green', 'gemini', 0.002, true), usage('develop-green', 'claude', 0.5, false)].join('\n')}\n`;
    const usages = foldRun(parseLogText(log).records).usage;
    const total = sumUsage(usages);
    assert.is(total.estimated, 2);
    assert.is(Math.round((total.cost_usd ?? 0) * 10_000), 7535);
    assert.is(
      describeTotal(total, fmt),
      '4,000 in / 400 out tokens, $0.75 over 4 leaves (2 of 4 costs estimated from agents-file prices)',
    );
    assert.equal(
      breakDownCost(usages).byStep.map((r) => [r.step, r.total.estimated]),
      [['A "step" $(x)', 2]],
    );
  },
);

sums.run();

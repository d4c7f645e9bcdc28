// The view (`leap status`, `leap report`): status start-up on a recorded run of the demo (at most 1.3x
// `node -e 0`), and a report of a 10,000-event log (at most 2x `node -e 0`, the file at most 2 MB), with
// three floors for the report: Node reading and parsing the log; that, then writing a file of the
// report's size; and a plain script writing the same content (bench/suites/_report-floor.cjs).
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const VIEW = (root) => join(root, 'packages', 'view');

function repo(dir, files) {
  mkdirSync(join(dir, '.git'), { recursive: true }); // the view finds the repository root by its .git; it runs no git
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

export default async function view(ctx) {
  const leap = ctx.bin('cli', 'leap');
  if (!ctx.has(leap)) {
    ctx.note('view: packages/cli/dist/bin/leap.cjs is not built; skipped');
    return;
  }
  const fixtures = join(VIEW(ctx.root), 'test', 'fixtures');
  const demo = repo(join(ctx.tmp, 'demo'), {
    '.tdd/events.jsonl': readFileSync(join(fixtures, 'demo.jsonl'), 'utf8'),
    '.tdd/issue-1.md':
      '# Slugify step titles\n\n## Steps\n\n- [x] Lowercase the words and join them with dashes <!-- criterion: 1 -->\n- [x] Drop characters like \' " $ ` that are not letters or digits <!-- criterion: 2 -->\n',
  });
  ctx.coldStart('leap status (a recorded run of the demo: 54 events, one ledger)', [leap, 'status'], {
    cwd: demo,
    budget: 1.3,
    expect: 0,
  });

  const { bigLog, ledgerText } = await import(join(fixtures, 'big-log.mjs'));
  const { lines, ledgers } = bigLog(3000);
  const events = lines.slice(0, 10_000);
  const files = { '.tdd/events.jsonl': events.join('') };
  for (const [issue, titles] of Object.entries(ledgers)) files[`.tdd/issue-${issue}.md`] = ledgerText(issue, titles);
  const big = repo(join(ctx.tmp, 'big'), files);
  const out = join(big, 'report.html');
  const report = ctx.coldStart(
    `leap report (${events.length.toLocaleString('en')} events)`,
    [leap, 'report', '--out', out],
    { cwd: big, budget: 2, expect: 0 },
  );
  // The same content written by the smallest thing that can: a plain script with no checks (its bars,
  // titles, lanes, diamonds, rows and cost tables, every text escaped). The budget is measured against it.
  const plain = join(ctx.root, 'bench', 'suites', '_report-floor.cjs');
  const same = ctx.coldStart(
    `floor: a plain script writing the same bars, verdicts and cost rows (bench/suites/${basename(plain)})`,
    [plain, join(big, '.tdd', 'events.jsonl'), join(big, 'plain.html')],
    { cwd: big, expect: 0 },
  );
  ctx.check(
    `leap report of ${events.length.toLocaleString('en')} events against the same content from a plain script`,
    `${(report / same).toFixed(2)}x its floor`,
    `report <= 2x node -e 0, floor ${same.toFixed(2)}x`,
    report <= 2,
    '',
    { value: `${same.toFixed(2)}x`, below: same > 2 },
  );
  // What no report of this log can beat: Node reading it and JSON.parse-ing each line, nothing else.
  const floor = `const t=require('fs').readFileSync(${JSON.stringify(join(big, '.tdd', 'events.jsonl'))},'utf8');for(const l of t.split('\\n'))if(l)JSON.parse(l)`;
  ctx.coldStart(
    `floor: node reading and parsing the same ${events.length.toLocaleString('en')} lines, nothing else`,
    ['-e', floor],
    { cwd: big, expect: 0 },
  );
  const bytes = statSync(out).size;
  // The least a report can do: the same, then write a file of the report's size (one string, one write).
  const written = `${floor};require('fs').writeFileSync(${JSON.stringify(join(big, 'floor.html'))},'x'.repeat(${bytes}))`;
  ctx.coldStart(
    `floor: the same, then writing a file of the report's size (${(bytes / 1e6).toFixed(2)} MB)`,
    ['-e', written],
    { cwd: big, expect: 0 },
  );
  ctx.check(
    `leap report of ${events.length.toLocaleString('en')} events: file size`,
    (bytes / 1e6).toFixed(2),
    '<= 2 MB',
    bytes <= 2e6,
    ' MB',
  );
  ctx.coldStart('leap status (the same 10,000 events)', [leap, 'status'], { cwd: big, expect: 0 });
}

// leap-jury: convene the blind cross-family jury on candidate files (a shim over conveneJury).
import { UsageError, parseCli, runCli, writeFd } from '@leap/core';
import { lastValue, sandboxFlag, takeVerbatim } from '../cli-args.js';

const USAGE = `Usage: leap-jury --builder-family F --reviewers A,B[,...] --intent TEXT --criteria TEXT [options] FILE...
Seats reviewers of model families other than the builder's (one seat per family; at least two),
gives each the same author-redacted envelope (the whole FILEs and tests, the intent, the criteria,
the candidate sha256) in parallel as supervised leaves review-CANDIDATE8-FAMILY, and counts:
a refuse or a bad answer is -1, a reviewer that never answered 0, only a unanimous pass 1
(a review that changed the repository, or bare passes alone, hold).
Options:
  --builder-family F   the builder's model family, a model id or its agent's name, read as the vendor
                       (claude-opus-4, sonnet, claude -> anthropic; gpt-5, codex -> openai)
  --reviewers LIST     comma-separated agent names (built-in: claude, codex, gemini; more via --agents)
  --alternates LIST    agents seated in place of reviewers that never answered
  --intent TEXT        the change's intent, one line
  --criteria TEXT      the pass criteria
  --test FILE          a test file of the candidate (repeatable)
  --lens NAME          the juror lens (default defect)
  --builder-name NAME, --model-id ID, --author NAME_OR_EMAIL, --session-id ID   identities that must
                       not reach a juror (repeatable; a session id stands for the builder's chat history);
                       the repository's git identity is added unless --no-git-aliases
  --agents FILE        an agents file (default VERI_AGENTS)
  --sandbox on|off     each juror reads a throwaway copy of the repository in a bubblewrap sandbox
                       (default LEAP_SANDBOX, else on); without bwrap the jury refuses (exit 2)
  --json               print the result as a JSON object
Exit codes: 0 pass (1), 1 refuse (-1), 2 hold (0), a leaking envelope, bad input or no sandbox.`;

const VALUED = ['builder-family', 'reviewers', 'alternates', 'intent', 'criteria', 'test', 'lens', 'agents', 'sandbox'];
const IDENTITIES = ['builder-name', 'model-id', 'author', 'session-id'];

void runCli(
  'leap-jury',
  async () => {
    const { rest, values } = takeVerbatim(process.argv.slice(2), [...VALUED, ...IDENTITIES], USAGE);
    const boolean = { type: 'boolean' } as const;
    const options = { json: boolean, 'no-git-aliases': boolean, help: { ...boolean, short: 'h' } };
    const { values: flags, positionals } = parseCli(rest, options, USAGE);
    if (flags.help === true) {
      writeFd(1, `${USAGE}\n`);
      return 0;
    }
    const required = (name: string): string => {
      const value = lastValue(values, name);
      if (value === undefined) throw new UsageError(`missing --${name}\n${USAGE}`);
      return value;
    };
    const listed = (name: string) => {
      const names = (values.get(name) ?? []).flatMap((v) => v.split(','));
      return names.map((v) => v.trim()).filter((v) => v !== '');
    };
    const { conveneJury } = await import('../jury/convene-jury.js');
    const result = await conveneJury({
      builderFamily: required('builder-family'),
      reviewers: (required('reviewers'), listed('reviewers')),
      alternates: listed('alternates'),
      intent: required('intent'),
      criteria: required('criteria'),
      files: positionals,
      tests: values.get('test') ?? [],
      lens: lastValue(values, 'lens'),
      builderName: lastValue(values, 'builder-name'),
      modelIds: values.get('model-id') ?? [],
      authors: values.get('author') ?? [],
      sessionIds: values.get('session-id') ?? [],
      gitAliases: flags['no-git-aliases'] !== true,
      agentsFile: lastValue(values, 'agents'),
      sandbox: sandboxFlag(lastValue(values, 'sandbox')),
    });
    const lines = [`candidate sha256:${result.candidate}`];
    for (const s of result.seats) {
      const seat = `${s.verdict} ${s.value}${s.replaced ? ' (re-seated)' : ''}`;
      lines.push(`review ${s.reviewer} (${s.family}): ${seat}: ${s.note}`);
    }
    for (const r of result.refused) lines.push(`refused ${r.reviewer} (${r.family}): ${r.reason}`);
    lines.push(`jury: ${result.value}: ${result.reason}`);
    writeFd(1, `${flags.json === true ? JSON.stringify(result) : lines.join('\n')}\n`);
    return result.value === 1 ? 0 : result.value === -1 ? 1 : 2;
  },
  { exitWhenDone: true },
);

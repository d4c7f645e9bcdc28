// leap-verify [prompt] --step TITLE PHASE: the blind verifier (a shim over verify / renderVerifyPrompt).
import { UsageError, checkIssue, parseCli, runCli, writeFd } from '@leap/core';
import { lastValue, sandboxFlag, takeVerbatim } from '../cli-args.js';

const USAGE = `Usage: leap-verify [prompt] --step TITLE PHASE [options]
Verifies one phase (red, green or refactor) of a ledger step: runs VERI_TEST_CMD for ground truth,
then asks the blind verifier agent (leaf verify-PHASE) for {"verdict": "PASS"|"REJECT"|"BLOCKED", "reason"}.
With "prompt", prints the verifier's prompt and asks nothing.
Options:
  --step TITLE     the ledger step, matched exactly (one argv element; may start with "-")
  --issue N        the issue (default VERI_ISSUE): its ledger .tdd/issue-N.md and its spec
  --ledger FILE    the ledger to find the step in
  --spec FILE      the behaviour spec (instead of the issue's acceptance criterion)
  --tests GLOB     the step's test files (repeatable; default: found from the red commit)
  --base SHA       refactor: the commit the refactor started from (required)
  --agent NAME     the verifier agent (default VERI_VERIFY_AGENT, else claude)
  --agents FILE    an agents file defining more agents (default VERI_AGENTS)
  --sandbox on|off the verifier reads a throwaway copy of the tree and the suite runs without home,
                   .git or network writes, in a bubblewrap sandbox (default LEAP_SANDBOX, else on);
                   without bwrap it refuses (exit 2)
  --json           print the verdict (or the prompt) as a JSON object
Exit codes: 0 PASS, 1 REJECT or BLOCKED (the step cannot be done as written), 2 malformed answer, killed verifier, \
bad input or no sandbox. The reason goes to stdout.`;

void runCli(
  'leap-verify',
  async () => {
    const valued = ['step', 'issue', 'ledger', 'spec', 'tests', 'base', 'agent', 'agents', 'sandbox'];
    const { rest, values } = takeVerbatim(process.argv.slice(2), valued, USAGE);
    const options = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
    const { values: flags, positionals } = parseCli(rest, options, USAGE);
    if (flags.help === true) {
      writeFd(1, `${USAGE}\n`);
      return 0;
    }
    const promptMode = positionals[0] === 'prompt';
    const args = promptMode ? positionals.slice(1) : positionals;
    const phases = args.map((a) => JSON.stringify(a)).join(' ');
    if (args.length > 1) throw new UsageError(`Expected one PHASE, got ${args.length} arguments: ${phases}\n${USAGE}`);
    const issue = lastValue(values, 'issue');
    const verifyOptions = {
      phase: args[0],
      step: lastValue(values, 'step'),
      issue: issue === undefined ? undefined : checkIssue(issue, '--issue'),
      ledgerFile: lastValue(values, 'ledger'),
      specFile: lastValue(values, 'spec'),
      testGlobs: values.get('tests'),
      base: lastValue(values, 'base'),
    };
    if (promptMode) {
      const { renderVerifyPrompt } = await import('../gather-verify-input.js');
      const { prompt, tests } = await renderVerifyPrompt(verifyOptions);
      const json = { prompt, tests: tests.files, testsSource: tests.source };
      writeFd(1, flags.json === true ? `${JSON.stringify(json)}\n` : prompt);
      return 0;
    }
    const { verify } = await import('../verify.js');
    const result = await verify({
      ...verifyOptions,
      agent: lastValue(values, 'agent'),
      agentsFile: lastValue(values, 'agents'),
      sandbox: sandboxFlag(lastValue(values, 'sandbox')),
    });
    const { leaf: _leaf, ...shown } = result;
    writeFd(1, flags.json === true ? `${JSON.stringify(shown)}\n` : `${result.reason}\n`);
    return result.code;
  },
  { exitWhenDone: true },
);

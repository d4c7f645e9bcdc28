// `leap demo [--dir DIR] [--json]`: the README's main job. Parsing, printing and the exit code live here.
import { UsageError, leapCommand, parseCli, type Subcommand } from '@leap/core';

export const DEMO_USAGE = `Usage: leap demo [--dir DIR] [--json]

Makes a small sample project in a new folder (slug-demo: a slugify function tested with node's own
test runner, a git repository), with issue 1 of three acceptance criteria in .tdd/issues/1.md, then
drives the issue end to end with the conductor of \`leap tdd run\` and scripted planner, developer and
verifier agents that replay prepared moves: the plan, then red, green, refactor per step, each verified
blind; one green is rejected by the verifier and revised. Progress is printed as it goes; a summary (steps,
commits, verdicts, time) and where to look end it. Nothing is installed, nothing goes to the network.

Options:
  --dir DIR   the project's folder, new or empty (default: a new temp folder); it is kept;
              a folder an earlier leap demo made resumes its run (after a stop, say)
  --json      print the run's result as one JSON object on stdout (progress goes to stderr)
  --help      this text

Exit codes: 0 done (every step and criterion ticked); 1 the run bailed (last line
"bail: CAUSE (CLASS)"), or git or the built toolchain is missing; 3 stopped by a stop request
(resume with \`leap demo --dir DIR\`); 2 bad input (DIR neither empty nor a demo, an
unknown option).
`;

const OPTIONS = { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export const demoMain: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, OPTIONS, DEMO_USAGE, { allowPositionals: true });
  if (values.help === true) return (io.stdout(DEMO_USAGE), 0);
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n${DEMO_USAGE}`);
  const [{ runDemo }, { formatDemoSummary, progressLine }, { exitCode }] = await Promise.all([
    import('./run-demo.js'),
    import('./demo-summary.js'),
    import('../exit-codes.js'),
  ]);
  const json = values.json === true;
  const started = Date.now();
  const say = json ? io.stderr : io.stdout;
  const { dir, resumed, result } = await runDemo({
    dir: values.dir,
    cwd: io.cwd,
    env: io.env,
    progress: (line) => say(progressLine(Date.now() - started, line)),
    onProject: (project, resume) =>
      say(
        resume
          ? `leap demo: resuming the run of issue 1 in ${project}\n`
          : `leap demo: sample project in ${project}; ` +
              'driving issue 1 (three acceptance criteria) with scripted agents\n',
      ),
  });
  if (json) io.stdout(`${JSON.stringify({ dir, resumed, ...result })}\n`);
  else io.stdout(formatDemoSummary(dir, result, leapCommand(io.cwd, io.env)));
  return exitCode(result.outcome);
};

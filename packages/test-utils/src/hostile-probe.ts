// One hostile probe for every sandbox test: the source of a Node script that tries what a hostile leaf would
// (each attempt a named expression), records what it saw (the value, `ok`, or the error's code), and reports it
// as one JSON line. The same text runs as `node -e`, as a CommonJS file and inside an ES module.

/** Where the probe reports: one JSON line on stderr (then exit `exitCode`), or appended to the file a JS expression names. */
export type ProbeReport = { stderr: true; exitCode: number } | { appendTo: string };

/**
 * The probe's source. `attempts` maps a name to a JS expression run with `fs` (node:fs) in scope, e.g.
 * `fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8')`; `when`, a JS condition, guards the whole
 * probe (the phase, the argv); `secret` names the variable whose value is recorded as `secret` (null when absent).
 */
export function hostileProbe(options: {
  attempts: Record<string, string>;
  report: ProbeReport;
  when?: string;
  secret?: string;
  seen?: Record<string, string>;
}): string {
  const { attempts, report, when, secret = 'SECRET_TOKEN' } = options;
  const start = Object.entries(options.seen ?? {})
    .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
    .join(', ');
  const body = [
    ...Object.entries(attempts).map(([name, expr]) => `  attempt(${JSON.stringify(name)}, () => ${expr});`),
    `  seen.secret = process.env[${JSON.stringify(secret)}] ?? null;`,
    'stderr' in report
      ? `  process.stderr.write(JSON.stringify(seen) + '\\n');\n  process.exit(${report.exitCode});`
      : `  fs.appendFileSync(${report.appendTo}, JSON.stringify(seen) + '\\n');`,
  ];
  return [
    "const fs = process.getBuiltinModule('node:fs');",
    `const seen = {${start}};`,
    'const attempt = (name, fn) => { try { seen[name] = fn() ?? "ok"; } catch (e) { seen[name] = e.code ?? String(e.message); } };',
    `if (${when ?? 'true'}) {`,
    ...body,
    '}',
    '',
  ].join('\n');
}

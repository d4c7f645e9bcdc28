// Bench: a jury of three reviewers of three families, each answering after one second.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export async function benchJury(tmp, leapJury) {
  const dir = join(tmp, 'jury');
  mkdirSync(join(dir, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  writeFileSync(join(dir, 'src', 'greet.js'), 'export const greet = () => "hello";\n');
  const answer = JSON.stringify({ verdict: 'pass', lens: 'defect', findings: [], reasoning: 'ok' });
  const agent = (family) => ({ plugin: 'command', family, command: ['bash', '-c', `cat >/dev/null; sleep 1; echo '${answer}'`] });
  writeFileSync(join(dir, 'agents.json'), JSON.stringify({ agents: { s1: agent('f1'), s2: agent('f2'), s3: agent('f3') } }));
  const env = { ...process.env, VERI_AGENTS: join(dir, 'agents.json'), VERI_STATE_DIR: join(dir, '.tdd') };
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [leapJury, '--builder-family', 'anthropic', '--reviewers', 's1,s2,s3', '--intent', 'greet says hello', '--criteria', 'returns hello', '--no-git-aliases', 'src/greet.js'], { cwd: dir, env, encoding: 'utf8' });
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r.status !== 0) throw new Error(`jury exit ${r.status}: ${r.stderr}`);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

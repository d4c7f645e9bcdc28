// A repository with a bare remote, and the stand-in gh of test/fixtures first on PATH, keeping its state in a temp folder.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, makeGitRepo, makeTempDir } from '@leap/test-utils';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** What the stand-in keeps: one repository's issues and pull requests. */
export interface GhState {
  repo: string;
  remote: string;
  defaultBranch?: string;
  loggedOut?: boolean;
  login?: string;
  issues: Record<
    string,
    { title: string; body: string; comments?: { author: string; body: string; createdAt: string }[] }
  >;
  pulls?: { number: number; title: string; body: string; head: string; base: string; draft: boolean }[];
}

/** One call the stand-in received. */
export interface GhCall {
  argv: string[];
  stdin: string | null;
  cwd: string;
  code: number;
  env: { GH_PROMPT_DISABLED: string | null };
}

/** A clone with `origin` a bare repository, and a stand-in gh whose state is `issues`. */
export function makeGhWorld(issues: GhState['issues'], extra: Partial<GhState> = {}) {
  const repo = makeGitRepo();
  const remote = join(makeTempDir('leap-gh-remote-'), 'widgets.git');
  git(repo, 'init', '-q', '--bare', remote);
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'push', '-q', 'origin', 'main');
  const stateDir = makeTempDir('leap-gh-state-');
  const stateFile = join(stateDir, 'state.json');
  writeFileSync(stateFile, JSON.stringify({ repo: 'acme/widgets', remote, issues, pulls: [], ...extra }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${fixtures}:${process.env.PATH ?? ''}`,
    GH_STANDIN_STATE: stateFile,
  };
  delete env.GH_TOKEN;
  return {
    repo,
    remote,
    env,
    state: (): GhState => JSON.parse(readFileSync(stateFile, 'utf8')) as GhState,
    calls: (): GhCall[] => {
      try {
        return readFileSync(join(stateDir, 'calls.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as GhCall);
      } catch {
        return [];
      }
    },
  };
}

// Is an agent installed? Its command resolved the way a spawn without a shell would.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** The executable file `command` runs (a path, or a name looked up on PATH), or null. */
export function findExecutable(command: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutableFile(path) ? path : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(resolve(cwd, dir), command);
    if (isExecutableFile(path)) return path;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

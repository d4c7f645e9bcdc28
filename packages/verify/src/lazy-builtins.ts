// Loaded on first use: a bundler hoists static imports, and `leap-verify prompt` on a green step never spawns.

export function childProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process');
}

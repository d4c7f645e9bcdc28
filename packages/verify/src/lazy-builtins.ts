// Built-in modules that hot commands rarely need, loaded on first use: a bundler hoists every static
// import to start-up, and `leap-verify prompt` on a green step never spawns anything.

/** `node:child_process`, loaded when first called. */
export function childProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process');
}

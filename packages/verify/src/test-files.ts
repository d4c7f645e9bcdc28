// Which files are tests: the project conventions, or the globs a caller names.

const TEST_DIRS = new Set(['test', 'tests', '__tests__']);

/** True for a test file by convention: under test/, tests/ or __tests__/, or named *.test.*, *_test.*, *.spec.*. */
export function isTestFile(path: string): boolean {
  const parts = path.split('/');
  const base = parts.pop() ?? '';
  if (parts.some((part) => TEST_DIRS.has(part))) return true;
  return /\.(test|spec)\.[^.]/.test(base) || /_test\.[^.]/.test(base);
}

/**
 * Compile a glob into a RegExp over slash-separated relative paths: `**` any folders, `*` and `?`
 * within one name, `[...]` a character class, `{a,b}` alternatives. A glob without a slash matches
 * the file name in any folder (as `--tests '*.test.js'` is meant).
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (c === '?') {
      source += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        source += '\\[';
      } else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      source += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      source += ')';
    } else if (c === ',' && depth > 0) {
      source += '|';
    } else {
      source += c.replace(/[.+^$()|\\/{}]/g, '\\$&');
    }
  }
  source += ')'.repeat(depth);
  return new RegExp(glob.includes('/') ? `^${source}$` : `(?:^|/)${source}$`, 'u');
}

/** The paths matching any of `globs`, in their given order. */
export function matchGlobs(paths: readonly string[], globs: readonly string[]): string[] {
  const patterns = globs.map(globToRegExp);
  return paths.filter((path) => patterns.some((pattern) => pattern.test(path)));
}

// Scope paths by CONTRACT section 7, normalised (`./a`, `a//b`) so two spellings of one file are one file.

const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 4095;

// The common case, valid and already normal: plain segments not starting with a dot, one slash between them.
const PLAIN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;
const PLAIN_LOWERCASE = /^[a-z0-9_-][a-z0-9_.-]*(?:\/[a-z0-9_-][a-z0-9_.-]*)*$/;

export const isPlainPath = (path: string): boolean => path.length <= MAX_SEGMENT_BYTES && PLAIN.test(path);

/** Whether `path` is plain (`isPlainPath`) with no letter whose case folds: its own key on any file system. */
export const isPlainLowercasePath = (path: string) => path.length <= MAX_SEGMENT_BYTES && PLAIN_LOWERCASE.test(path);

/** Why `path` cannot be a scope path (a phrase: `is absolute...`), or null when it can. */
export function scopePathProblem(path: string): string | null {
  if (isPlainPath(path)) return null;
  if (path.length === 0) return 'is empty';
  if (path.includes('\0')) return 'contains a NUL byte, which no file name can hold';
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path))
    return 'is absolute: scope paths are relative to the repository root';
  if (path.includes('\\')) return 'contains a backslash: folders are separated by "/"';
  const segments = path.split('/');
  if (segments.includes('..')) return 'has a ".." segment: scope paths stay inside the repository';
  const kept = segments.filter((s) => s !== '' && s !== '.');
  if (kept.length === 0) return 'names the repository itself, not a file';
  if (path.endsWith('/') || path.endsWith('/.')) return 'ends with "/": a scope entry names a file, not a folder';
  if (kept.some((s) => s.toLowerCase() === '.git')) return 'is inside .git, which the repository cannot hold';
  if (kept[0]?.toLowerCase() === '.leap') return 'is inside .leap, where the engine keeps its records';
  const long = kept.find((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES);
  if (long !== undefined)
    return `has a segment of ${Buffer.byteLength(long)} bytes: file systems hold at most ${MAX_SEGMENT_BYTES}`;
  const bytes = Buffer.byteLength(kept.join('/'));
  if (bytes > MAX_PATH_BYTES) return `is ${bytes} bytes long: file systems hold at most ${MAX_PATH_BYTES}`;
  return null;
}

/** `path` without `.` segments and repeated slashes (check it with scopePathProblem first). */
export function normalizeScopePath(path: string): string {
  if (isPlainPath(path)) return path;
  return path
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

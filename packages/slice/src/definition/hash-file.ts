import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function hashFile(root: string, path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return createHash('sha256').update(bytes).digest('hex');
}

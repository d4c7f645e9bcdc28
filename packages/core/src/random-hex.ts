// Random hex for temp-file names and lock tokens. Not for secrets: Math.random spares every
// command the load of node:crypto, and exclusive creation ('wx') already guards against collisions.

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++)
    out += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}

// For temp names and lock tokens, never secrets: Math.random spares loading node:crypto, and 'wx' guards collisions.
export function randomHex(bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++)
    out += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}

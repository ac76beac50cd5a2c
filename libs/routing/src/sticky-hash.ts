/**
 * Maps a sticky key to [0, 1) identically on every router replica and Node version:
 * FNV-1a over the UTF-8 bytes, then murmur3's fmix32 finalizer so that keys differing only
 * in their last character (user-1, user-2 ...) still spread over the whole range.
 */
export function stickyFraction(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

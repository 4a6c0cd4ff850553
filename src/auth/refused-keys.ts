/**
 * Hashes of keys the database lately said are unknown or revoked, each for `ttlMs`, at most
 * `maxEntries` of them: a key tried again within that time is refused from memory. A Map keeps
 * insertion order and every entry lives equally long, so the oldest entry is the first to
 * expire: adding drops expired entries from the front, and past `maxEntries` the oldest, so
 * a flood of distinct keys costs a fixed amount of memory and O(1) per key. Kept apart from
 * the verified keys so that such a flood cannot push valid keys out of their cache.
 */
export class RefusedKeys {
  /** Key hash → when its entry expires (ms since the epoch). */
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  /** Whether `keyHash` was refused less than `ttlMs` ago. */
  has(keyHash: string, now: number): boolean {
    const expiresAt = this.expiries.get(keyHash);
    if (expiresAt === undefined) return false;
    if (expiresAt > now) return true;
    this.expiries.delete(keyHash);
    return false;
  }

  add(keyHash: string, now: number): void {
    if (this.ttlMs === 0) return;
    this.expiries.delete(keyHash);
    for (const [oldest, expiresAt] of this.expiries) {
      if (expiresAt > now && this.expiries.size < this.maxEntries) break;
      this.expiries.delete(oldest);
    }
    this.expiries.set(keyHash, now + this.ttlMs);
  }

  /** Forgets `keyHash` (this instance has just made the key, or made it valid again). */
  delete(keyHash: string): void {
    this.expiries.delete(keyHash);
  }

  /** How many keys are remembered (for tests and diagnostics). */
  get size(): number {
    return this.expiries.size;
  }
}

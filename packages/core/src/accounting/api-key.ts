import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * API keys are kept only as salted SHA-256 digests. A digest is a lookup key for an account's keys
 * (the account's own and its identities'), and the final comparison runs in constant time.
 */
export function hashApiKey(salt: string, apiKey: string): string {
  return bytesToHex(sha256(utf8ToBytes(`${salt}:${apiKey}`)));
}

/**
 * Remembers recent digests so a busy client is not re-hashed on every call. Held in process memory
 * only (never stored), bounded, keyed by salt and key together.
 */
export class ApiKeyDigests {
  /**
   * By key, then by salt: keyed by the key first so a call builds no string to find its digest, and by
   * salt within it so accounts that share one key (test fleets, benchmarks) each keep their own digest.
   */
  private memo = new Map<string, Map<string, string>>();
  constructor(
    private readonly capacity = 10_000,
    private readonly saltsPerKey = 64,
  ) {}

  digest(salt: string, apiKey: string): string {
    let bySalt = this.memo.get(apiKey);
    const held = bySalt?.get(salt);
    if (held !== undefined) return held;
    const digest = hashApiKey(salt, apiKey);
    if (bySalt === undefined) {
      if (this.memo.size >= this.capacity) this.memo.delete(this.memo.keys().next().value!);
      this.memo.set(apiKey, (bySalt = new Map()));
    } else if (bySalt.size >= this.saltsPerKey) bySalt.delete(bySalt.keys().next().value!);
    bySalt.set(salt, digest);
    return digest;
  }
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length === b.length) {
    let same = 0;
    for (let i = 0; i < a.length; i++) same |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return same === 0;
  }
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % (a.length || 1)) ^ b.charCodeAt(i % (b.length || 1))) | 0;
  return diff === 0;
}

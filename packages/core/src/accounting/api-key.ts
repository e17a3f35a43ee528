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
  /** By key, the salt it was last hashed with and the digest (keyed by the key alone: no string to build per call). */
  private memo = new Map<string, { salt: string; digest: string }>();
  constructor(private readonly capacity = 10_000) {}

  digest(salt: string, apiKey: string): string {
    const held = this.memo.get(apiKey);
    if (held !== undefined && held.salt === salt) return held.digest;
    const digest = hashApiKey(salt, apiKey);
    if (held === undefined && this.memo.size >= this.capacity) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(apiKey, { salt, digest });
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

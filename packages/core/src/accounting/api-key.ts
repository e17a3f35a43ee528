import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * API keys are kept only as salted SHA-256 digests. A digest is a lookup key for an account's keys
 * (the account's own and its identities'), and the final comparison runs in constant time.
 */
export function hashApiKey(salt: string, apiKey: string): string {
  return bytesToHex(sha256(utf8ToBytes(`${salt}:${apiKey}`)));
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % (a.length || 1)) ^ b.charCodeAt(i % (b.length || 1))) | 0;
  return diff === 0;
}

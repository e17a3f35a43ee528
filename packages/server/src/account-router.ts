import { createHash } from 'node:crypto';
import { readCredentials } from '@sdp/http';

/**
 * The most of a connection's first bytes the primary reads to find whose calls it carries: a request
 * head longer than this is handed on unread further (it goes to any worker, whose own parser answers 431).
 */
export const HEAD_LIMIT = 16 * 1024;

/**
 * The username a request head carries, read the way the API and the stream read credentials: a raw,
 * `Auth` or Basic header (`readCredentials`), or `username` in the query (the stream's form). Undefined
 * when the head carries none or is not a request head: such a connection goes to any worker, which
 * answers it as it answers anything (401, the operator API, the docs).
 */
export function accountOfHead(head: Buffer): string | undefined {
  const end = head.indexOf('\r\n\r\n');
  const text = head.toString('latin1', 0, end < 0 ? head.length : end);
  const lines = text.split('\r\n');
  const target = /^[A-Z]+ (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '')?.[1];
  if (target === undefined) return undefined;
  let authorization: string | undefined;
  let auth: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).toLowerCase();
    if (name === 'authorization') authorization ??= line.slice(colon + 1);
    else if (name === 'auth') auth ??= line.slice(colon + 1);
  }
  const fromHeaders = readCredentials(authorization, auth)?.username;
  if (fromHeaders !== undefined) return fromHeaders;
  const query = target.indexOf('?');
  if (query < 0) return undefined;
  try {
    return new URLSearchParams(target.slice(query + 1)).get('username') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The slot that owns `account` among the live ones: the highest of a hash of (slot, account), so each
 * account has one owner while the set of slots stands, and a slot that leaves hands only its own
 * accounts to the others (each to its next highest), which take them back to it when it returns.
 */
export function ownerOf(account: string, slots: readonly number[]): number | undefined {
  let best: number | undefined;
  let bestScore = -1;
  for (const slot of slots) {
    const score = createHash('sha1').update(`${slot}\u0000${account}`).digest().readUInt32BE(0);
    if (score > bestScore || (score === bestScore && slot < best!)) {
      best = slot;
      bestScore = score;
    }
  }
  return best;
}

import type { Ids } from '@sdp/core';

/** Random bytes drawn at once: 4 KB, written out as 8,192 hex digits that ids are cut from. */
const POOL_BYTES = 4096;
const DIGITS = new TextEncoder().encode('0123456789abcdef');
const ASCII = new TextDecoder();

/**
 * Random lowercase hex ids in any length the platform asks for (20, 32, 40), each digit four random bits
 * from Web Crypto. Bytes are drawn 4 KB at a time and written out as one hex text that ids are sliced
 * from: an id built a character at a time (as nanoid's alphabet ids are) left about 1 KB of garbage behind,
 * and every stored event takes one. A pool is per `randomIds()`, never shared between two of them.
 */
export function randomIds(): Ids {
  let text = '';
  let at = 0;
  return {
    hex(length) {
      if (!Number.isInteger(length) || length < 1 || length > POOL_BYTES * 2) throw new RangeError(`an id is 1 to ${POOL_BYTES * 2} hex digits, not ${length}`);
      if (at + length > text.length) {
        text = hexOf(crypto.getRandomValues(new Uint8Array(POOL_BYTES)));
        at = 0;
      }
      const id = text.slice(at, at + length);
      at += length;
      return id;
    },
  };
}

function hexOf(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = DIGITS[bytes[i]! >> 4]!;
    out[2 * i + 1] = DIGITS[bytes[i]! & 15]!;
  }
  return ASCII.decode(out);
}

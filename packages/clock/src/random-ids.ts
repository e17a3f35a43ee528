import type { Ids } from '@sdp/core/kernel';

/** Random bytes drawn from Web Crypto at once, that ids' digits are written from. */
const POOL_BYTES = 4096;
/** The longest id the platform may ask for (its ids are 20, 32 and 40 digits). */
const MAX_LENGTH = POOL_BYTES * 2;

/**
 * Digits written out at once, and cut into ids as they are asked for: eight ids of 32 digits. An id is
 * a slice of its draw, so an id kept alone keeps its draw's 256 bytes alive: the draw is kept that small
 * for it.
 */
const DRAW = 256;

const ASCII = new TextDecoder();

/**
 * Random lowercase hex ids in any length the platform asks for (20, 32, 40), each digit four random bits
 * (16 digits divide 256, so every bit of every byte is used and none is thrown away). Its random source
 * is a pool of Web Crypto bytes per `randomIds()`, drawn 4 KB at a time (one call to Web Crypto per
 * hundred ids), never shared between two of them. Digits are written `DRAW` at a time, each byte's two
 * as one 16-bit unit, and each id takes the next ones; the rest of a draw too short for an id is left
 * unused. nanoid's `customRandom` made the digits before: it adds them to a string one at a time, which
 * cost about a kilobyte of garbage and 0.3 µs an id (docs/performance.md, "fourth pass").
 */
export function randomIds(): Ids {
  let pool = new Uint8Array(0);
  let at = 0;
  const bytes = (n: number): Uint8Array => {
    if (at + n > pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(Math.max(POOL_BYTES, n)));
      at = 0;
    }
    at += n;
    return pool.subarray(at - n, at);
  };
  const units = new Uint16Array(DRAW / 2);
  let drawn = '';
  let next = DRAW;
  return {
    hex(length) {
      if (!Number.isInteger(length) || length < 1 || length > MAX_LENGTH) throw new RangeError(`an id is 1 to ${MAX_LENGTH} hex digits, not ${length}`);
      if (length > DRAW) return hexOf(bytes(Math.ceil(length / 2)), new Uint16Array(Math.ceil(length / 2))).slice(0, length);
      if (next + length > DRAW) {
        drawn = hexOf(bytes(DRAW / 2), units);
        next = 0;
      }
      return drawn.slice(next, (next += length));
    },
  };
}

/** `from`'s bytes as hex digits, written through `into` (as long as `from`): one flat string. */
function hexOf(from: Uint8Array, into: Uint16Array): string {
  for (let i = 0; i < from.length; i++) into[i] = DIGIT_PAIRS[from[i]!]!;
  return ASCII.decode(into);
}

/**
 * Each byte's two hex digits as one 16-bit unit, its bytes in the order the text reads them (written
 * through a byte view, so whatever the machine's byte order): one store a byte instead of two.
 */
const DIGIT_PAIRS = new Uint16Array(256);
{
  const HEX = new TextEncoder().encode('0123456789abcdef');
  const pairBytes = new Uint8Array(DIGIT_PAIRS.buffer);
  for (let b = 0; b < 256; b++) {
    pairBytes[2 * b] = HEX[b >> 4]!;
    pairBytes[2 * b + 1] = HEX[b & 15]!;
  }
}

import { customRandom } from 'nanoid';
import type { Ids } from '@sdp/core/kernel';

/** Random bytes drawn from Web Crypto at once, that ids' digits are taken from. */
const POOL_BYTES = 4096;
const HEX = '0123456789abcdef';
/** The longest id the platform may ask for (its ids are 20, 32 and 40 digits). */
const MAX_LENGTH = POOL_BYTES * 2;

/**
 * Digits drawn from nanoid at once, and cut into ids as they are asked for: eight ids of 32 digits.
 * Each draw pays nanoid's call, the pool's view and one join (`flat`) for all of them (measured: about
 * a quarter less CPU an id). An id is a slice of its draw, so an id kept alone keeps its draw's 256
 * bytes alive: the draw is kept that small for it.
 */
const DRAW = 256;

/**
 * Random lowercase hex ids in any length the platform asks for (20, 32, 40): nanoid's `customRandom`
 * over the hex alphabet, each digit four random bits (16 letters divide 256, so no byte is thrown away).
 * Its random source is a pool of Web Crypto bytes per `randomIds()`, drawn 4 KB at a time (one call to
 * Web Crypto per hundred ids), never shared between two of them. Digits are drawn `DRAW` at a time and
 * each id takes the next ones; the rest of a draw too short for an id is left unused.
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
  const make = customRandom(HEX, DRAW, bytes);
  let drawn = '';
  let next = DRAW;
  return {
    hex(length) {
      if (!Number.isInteger(length) || length < 1 || length > MAX_LENGTH) throw new RangeError(`an id is 1 to ${MAX_LENGTH} hex digits, not ${length}`);
      if (length > DRAW) return flat(make(length));
      if (next + length > DRAW) {
        drawn = flat(make(DRAW));
        next = 0;
      }
      return drawn.slice(next, (next += length));
    },
  };
}

/**
 * `id` as one run of characters. nanoid adds an id's digits one at a time, and V8 keeps such a string as
 * a chain of joined pieces, one per digit past the twelfth: every stored event's id held about 680 bytes
 * alive (in the log, in cached states) where its 32 digits need about 60, and the collector copied the
 * chain from space to space. A regular expression run over a string makes V8 join it in place (measured:
 * 59 bytes kept per id against 684).
 */
function flat(id: string): string {
  JOIN.test(id);
  return id;
}
const JOIN = /^/;

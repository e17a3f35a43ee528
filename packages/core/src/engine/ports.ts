/** Time comes in through this port only: the core never reads a clock itself. */
export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

/** Identifiers come in through this port only: the core never reads randomness itself. */
export interface Ids {
  /** A lowercase hex id of the given length (the platform's ids are 20, 32 or 40 hex). */
  hex(length: number): string;
}

/**
 * Deterministic ids from a seed (xorshift128+), for tests and simulations that must replay exactly.
 * Servers use the nanoid-based ids of `@sdp/clock`.
 */
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function seededIds(seed = 1): Ids {
  let s0 = (seed | 0) ^ 0x9e3779b9;
  let s1 = Math.imul(seed | 0, 0x85ebca6b) ^ 0xc2b2ae35;
  if (s0 === 0 && s1 === 0) s1 = 1;
  const next32 = (): number => {
    let x = s0;
    const y = s1;
    s0 = y;
    x ^= x << 23;
    x ^= x >>> 17;
    x ^= y ^ (y >>> 26);
    s1 = x;
    return (s0 + s1) >>> 0;
  };
  return {
    hex(length) {
      let out = '';
      while (out.length < length) {
        const n = next32();
        out += HEX_BYTE[n >>> 24]! + HEX_BYTE[(n >>> 16) & 255]! + HEX_BYTE[(n >>> 8) & 255]! + HEX_BYTE[n & 255]!;
      }
      return out.length === length ? out : out.slice(0, length);
    },
  };
}

/** A clock that reads a fixed value, for deciders' tests. */
export function fixedClock(ms: number): Clock {
  return { now: () => ms };
}

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

const HEX_CODE = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * Deterministic ids from a seed, for tests and simulations that must replay exactly: the generator is
 * xoshiro128** (period 2^128 - 1), its four words of state drawn from the seed by splitmix32 so that
 * nearby seeds give unrelated streams. Servers use the random ids of `@sdp/clock`.
 */
export function seededIds(seed = 1): Ids {
  let z = seed | 0;
  const splitmix = (): number => {
    z = (z + 0x9e3779b9) | 0;
    let t = z ^ (z >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  if ((a | b | c | d) === 0) d = 1;
  let digits: number[] = [];
  const next32 = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
  return {
    hex(length) {
      // Digits as character codes, made into one flat string: joining pieces with `+` would leave a tree
      // of seven strings per 32-digit id, and ids are kept with every stored event.
      if (digits.length < length) digits = new Array(length);
      digits.length = length;
      for (let i = 0; i < length; i += 8) {
        const n = next32();
        for (let k = 0; k < 8 && i + k < length; k++) digits[i + k] = HEX_CODE[(n >>> (28 - 4 * k)) & 15]!;
      }
      return String.fromCharCode.apply(null, digits);
    },
  };
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** A clock that reads a fixed value, for deciders' tests. */
export function fixedClock(ms: number): Clock {
  return { now: () => ms };
}

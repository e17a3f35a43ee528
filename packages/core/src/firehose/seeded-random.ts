/**
 * A small seeded generator (mulberry32) and the draws the firehose needs. The core never reads
 * randomness: every synthetic interaction follows from a seed.
 */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  hex(length: number): string {
    // Byte by byte from a table: ids are drawn for every synthetic interaction, and number-to-string
    // conversion with padding was a tenth of a simulation's time. The digits are the same.
    let out = '';
    while (out.length < length) {
      const x = (this.next() * 4294967296) >>> 0;
      out += BYTE_HEX[x >>> 24]! + BYTE_HEX[(x >>> 16) & 255]! + BYTE_HEX[(x >>> 8) & 255]! + BYTE_HEX[x & 255]!;
    }
    return out.length === length ? out : out.slice(0, length);
  }
}

const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Mixes numbers into one 32-bit seed (so a minute of a seed's firehose is the same however it is fed). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    let x = Math.floor(p) | 0;
    for (let k = 0; k < 4; k++) {
      h ^= x & 0xff;
      h = Math.imul(h, 0x01000193);
      x >>>= 8;
    }
    // The high part of large numbers (minutes since the epoch fit in 32 bits, but be safe).
    h ^= Math.floor(p / 4294967296) | 0;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Draws from weighted choices: `[value, weight][]`. */
export class Weighted<T> {
  private readonly values: T[];
  private readonly cumulative: number[];
  private readonly total: number;
  constructor(choices: readonly (readonly [T, number])[]) {
    this.values = choices.map((c) => c[0]);
    let sum = 0;
    this.cumulative = choices.map((c) => (sum += c[1]));
    this.total = sum;
  }

  draw(rng: SeededRandom): T {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
}

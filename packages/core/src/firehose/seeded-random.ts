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

  /** Where the generator stands: `new SeededRandom(rng.position)` draws what `rng` draws next. */
  get position(): number {
    return this.state;
  }

  /** Moves on by `draws` draws without making them (each draw steps the state by one constant). */
  skip(draws: number): void {
    this.state = (this.state + Math.imul(draws, 0x6d2b79f5)) >>> 0;
  }

  /** 32 random bits as an unsigned integer (what `hex` spells eight digits of). */
  word(): number {
    return (this.next() * 4294967296) >>> 0;
  }

  hex(length: number): string {
    // Digit codes into one buffer, then one string: ids are drawn for every synthetic interaction, and
    // both number-to-string conversion with padding and a string grown piece by piece cost a lot there.
    // The digits are those of each draw's 32 bits, most significant first.
    const codes = length <= 64 ? (HEX_BUFFERS[length] ??= new Array<number>(length).fill(0)) : new Array<number>(length).fill(0);
    for (let k = 0; k < length; k += 8) {
      const x = (this.next() * 4294967296) >>> 0;
      for (let j = 0; j < 8 && k + j < length; j++) codes[k + j] = HEX_DIGITS[(x >>> (28 - 4 * j)) & 15]!;
    }
    return String.fromCharCode.apply(null, codes);
  }
}

const HEX_DIGITS = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** Buffers `hex` spells ids of up to 64 digits in, one per length (per thread; nothing else holds them). */
const HEX_BUFFERS: number[][] = [];

const HEX32: number[] = new Array<number>(32).fill(0);
/** The 32 hex digits `hex(32)` spells from the four words it draws, most significant first. */
export function hexOfWords(a: number, b: number, c: number, d: number): string {
  const codes = HEX32;
  for (let j = 0; j < 8; j++) {
    codes[j] = HEX_DIGITS[(a >>> (28 - 4 * j)) & 15]!;
    codes[8 + j] = HEX_DIGITS[(b >>> (28 - 4 * j)) & 15]!;
    codes[16 + j] = HEX_DIGITS[(c >>> (28 - 4 * j)) & 15]!;
    codes[24 + j] = HEX_DIGITS[(d >>> (28 - 4 * j)) & 15]!;
  }
  return String.fromCharCode.apply(null, codes);
}


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
    return this.values[this.drawIndex(rng)]!;
  }

  /** The index of a drawn value (the same draw as `draw`). */
  drawIndex(rng: SeededRandom): number {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  valueAt(index: number): T {
    return this.values[index]!;
  }
}

import { randomIds } from '@sdp/clock';
import { customAlphabet } from 'nanoid';
import { opsPerSecondSync, type BenchReport } from './lib.ts';

/**
 * Random ids (every stored event takes one): `randomIds` (nanoid's `customRandom` over a 4 KB pool of Web
 * Crypto bytes) beside the hand-written pool it replaced (4 KB of bytes written out as one hex text and
 * sliced), kept here as the baseline, and nanoid's own `customAlphabet`, in the same run. Reports ids a
 * second of 32 digits and the heap each leaves behind per id.
 */
function handWritten(): (length: number) => string {
  const DIGITS = new TextEncoder().encode('0123456789abcdef');
  const ASCII = new TextDecoder();
  let text = '';
  let at = 0;
  return (length) => {
    if (at + length > text.length) {
      const bytes = crypto.getRandomValues(new Uint8Array(4096));
      const out = new Uint8Array(bytes.length * 2);
      for (let i = 0; i < bytes.length; i++) {
        out[2 * i] = DIGITS[bytes[i]! >> 4]!;
        out[2 * i + 1] = DIGITS[bytes[i]! & 15]!;
      }
      text = ASCII.decode(out);
      at = 0;
    }
    const id = text.slice(at, at + length);
    at += length;
    return id;
  };
}

/** Heap bytes allocated per id, over a million of them (what the collector has to take back). */
function heapPerId(make: () => string): number {
  const keep: string[] = new Array(1000);
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  for (let i = 0; i < 100_000; i++) {
    keep[i % 1000] = make();
    if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  return Math.max(0, peak - before) / 100_000;
}

export default async function idsBench(): Promise<BenchReport> {
  const hand = handWritten();
  const pooled = randomIds();
  const alphabet = customAlphabet('0123456789abcdef', 32);
  const ms = Number(process.env.SDP_IDS_BENCH_MS ?? 1000);
  const base = opsPerSecondSync(() => hand(32), ms);
  const mine = opsPerSecondSync(() => pooled.hex(32), ms);
  const plain = opsPerSecondSync(() => alphabet(), ms);
  const perId = (ops: number) => `${(1e6 / ops).toFixed(3)} µs`;
  return {
    title: 'Random ids: 32 hex digits',
    baseline: { name: 'hand-written 4 KB pool, sliced (before)', opsPerSec: base, extra: { 'per id': perId(base), 'heap per id': `${heapPerId(() => hand(32)).toFixed(0)} B` } },
    subjects: [
      { name: 'randomIds: nanoid customRandom over a 4 KB Web Crypto pool', opsPerSec: mine, extra: { 'per id': perId(mine), 'heap per id': `${heapPerId(() => pooled.hex(32)).toFixed(0)} B` } },
      { name: "nanoid customAlphabet (its own pool)", opsPerSec: plain, extra: { 'per id': perId(plain), 'heap per id': `${heapPerId(() => alphabet()).toFixed(0)} B` } },
    ],
    notes: ['An engine call takes one to a few ids; a charged call costs about 25 µs on this machine, so either way an id is a small share of it.'],
  };
}

import { randomIds } from '@sdp/clock';
import { opsPerSecondSync, type BenchReport } from './lib.ts';

/**
 * Random ids (every stored event takes one): `randomIds` (a 4 KB pool of Web Crypto bytes, written out
 * 256 digits at a time) beside a pool written out 8 KB of digits at a time and sliced, in the same run.
 * The larger text costs less per id, but an id kept alone keeps all of it alive. Reports ids a second of
 * 32 digits and the heap each leaves behind per id.
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
  const ms = Number(process.env.SDP_IDS_BENCH_MS ?? 1000);
  const base = opsPerSecondSync(() => hand(32), ms);
  const mine = opsPerSecondSync(() => pooled.hex(32), ms);
  const perId = (ops: number) => `${(1e6 / ops).toFixed(3)} µs`;
  return {
    title: 'Random ids: 32 hex digits',
    baseline: { name: '4 KB of bytes written out at once, sliced', opsPerSec: base, extra: { 'per id': perId(base), 'heap per id': `${heapPerId(() => hand(32)).toFixed(0)} B` } },
    subjects: [
      { name: 'randomIds: 256 digits written out at a time from a 4 KB Web Crypto pool', opsPerSec: mine, extra: { 'per id': perId(mine), 'heap per id': `${heapPerId(() => pooled.hex(32)).toFixed(0)} B` } },
    ],
    notes: ['An engine call takes one to a few ids; a charged call costs about 25 µs on this machine, so either way an id is a small share of it.'],
  };
}

/**
 * Benchmarks report ratios to a baseline measured in the same run: this machine is shared and noisy, so
 * only a ratio taken side by side means anything.
 */
export interface BenchLine {
  name: string;
  /** Operations per second. */
  opsPerSec: number;
  /** Extra figures to print (p99 latency, memory, ...). */
  extra?: Record<string, string | number>;
}

export interface BenchReport {
  title: string;
  baseline: BenchLine;
  subjects: BenchLine[];
  /** The goal as a sentence, and whether it was met, where the issue sets one. */
  goal?: { text: string; met: boolean };
  notes?: string[];
}

/** Runs `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns operations per second. */
export async function opsPerSecond(fn: () => unknown | Promise<unknown>, ms = 1500, batch = 100): Promise<number> {
  const warmUntil = performance.now() + Math.min(300, ms / 4);
  while (performance.now() < warmUntil) for (let i = 0; i < batch; i++) await fn();
  let ops = 0;
  const start = performance.now();
  let end = start;
  while (end - start < ms) {
    for (let i = 0; i < batch; i++) await fn();
    ops += batch;
    end = performance.now();
  }
  return (ops * 1000) / (end - start);
}

/** Same as `opsPerSecond` for synchronous work (no await per iteration). */
export function opsPerSecondSync(fn: () => unknown, ms = 1500, batch = 1000): number {
  const warmUntil = performance.now() + Math.min(300, ms / 4);
  while (performance.now() < warmUntil) for (let i = 0; i < batch; i++) fn();
  let ops = 0;
  const start = performance.now();
  let end = start;
  while (end - start < ms) {
    for (let i = 0; i < batch; i++) fn();
    ops += batch;
    end = performance.now();
  }
  return (ops * 1000) / (end - start);
}

export function formatReport(r: BenchReport): string {
  const rows = [r.baseline, ...r.subjects].map((l) => {
    const ratio = l === r.baseline ? 'baseline' : `${(l.opsPerSec / r.baseline.opsPerSec).toFixed(3)}x`;
    const extra = l.extra ? Object.entries(l.extra).map(([k, v]) => `${k}=${v}`).join(' ') : '';
    return `  ${l.name.padEnd(58)} ${fmt(l.opsPerSec).padStart(14)} ops/s  ${ratio.padStart(9)}  ${extra}`;
  });
  const out = [`## ${r.title}`, ...rows];
  if (r.goal) out.push(`  goal: ${r.goal.text} -> ${r.goal.met ? 'MET' : 'NOT MET'}`);
  for (const n of r.notes ?? []) out.push(`  note: ${n}`);
  return out.join('\n');
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);
}

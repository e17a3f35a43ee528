import { BadRequest } from '../calls/errors.ts';
import { readTarget, type Interaction } from '../filters/index.ts';

/**
 * The analyses a Historics preview runs (docs/clients.md#preview): `parameters` is a string of
 * `target,analysis,argument` triples, joined by `;` or `,` (clients do both), 1 to 20 of them.
 */
export type PreviewInterval = 'minute' | 'hour' | 'day';
export const PREVIEW_INTERVALS: readonly PreviewInterval[] = ['minute', 'hour', 'day'];
export const PREVIEW_ANALYSES = ['freqDist', 'targetVol', 'numStats', 'wordCount'] as const;
export type PreviewAnalysisType = (typeof PREVIEW_ANALYSES)[number];
export const MAX_PREVIEW_ANALYSES = 20;
export const MAX_PREVIEW_THRESHOLD = 1_000;

export type PreviewAnalysis =
  | { target: string; analysis: 'freqDist' | 'wordCount'; threshold: number }
  | { target: string; analysis: 'targetVol' | 'numStats'; interval: PreviewInterval };

export type PreviewOutput = Record<string, number> | Record<string, { count: number; max: number; sum: number; min: number }>;
export type PreviewData = PreviewAnalysis & { output: PreviewOutput };

const TARGET = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

/** Reads the triples; every problem is a 400 naming the triple. */
export function parsePreviewParameters(text: string): PreviewAnalysis[] {
  const fields = text.split(/[;,]/).map((f) => f.trim());
  if (fields.length === 1 && fields[0] === '') throw new BadRequest("Missing param 'parameters'");
  if (fields.length % 3 !== 0) {
    throw new BadRequest('parameters must be target,analysis,argument triples joined by ; or , (e.g. language.tag,freqDist,5;interaction.id,targetVol,hour)');
  }
  const count = fields.length / 3;
  if (count > MAX_PREVIEW_ANALYSES) throw new BadRequest(`parameters may hold at most ${MAX_PREVIEW_ANALYSES} analyses; it holds ${count}`);
  const out: PreviewAnalysis[] = [];
  for (let k = 0; k < fields.length; k += 3) {
    const [target, analysis, argument] = [fields[k]!, fields[k + 1]!, fields[k + 2]!];
    const where = `parameters: ${target},${analysis},${argument}`;
    if (!TARGET.test(target)) throw new BadRequest(`${where}: ${target} is not a target`);
    if (analysis === 'freqDist' || analysis === 'wordCount') {
      const threshold = /^\d+$/.test(argument) ? Number(argument) : NaN;
      if (!(threshold >= 1 && threshold <= MAX_PREVIEW_THRESHOLD)) throw new BadRequest(`${where}: the threshold must be a whole number from 1 to ${MAX_PREVIEW_THRESHOLD}`);
      out.push({ target, analysis, threshold });
    } else if (analysis === 'targetVol' || analysis === 'numStats') {
      if (!(PREVIEW_INTERVALS as readonly string[]).includes(argument)) throw new BadRequest(`${where}: the interval must be one of ${PREVIEW_INTERVALS.join(', ')}`);
      out.push({ target, analysis, interval: argument as PreviewInterval });
    } else {
      throw new BadRequest(`${where}: the analysis must be one of ${PREVIEW_ANALYSES.join(', ')}`);
    }
  }
  return out;
}

const INTERVAL_MS: Record<PreviewInterval, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** `2013/02/03 09:00:00` (UTC), the bucket key the service used. */
function bucketKey(at: number, interval: PreviewInterval): string {
  const start = Math.floor(at / INTERVAL_MS[interval]) * INTERVAL_MS[interval];
  const iso = new Date(start).toISOString();
  return `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 19)}`;
}

const present = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
const values = (v: unknown): unknown[] => (Array.isArray(v) ? v : present(v) ? [v] : []);

/** The `threshold` most frequent keys, most frequent first (ties by key, so answers are stable). */
function top(counts: Map<string, number>, threshold: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, threshold)) out[k] = n;
  return out;
}

/** Runs one analysis over the interactions a preview covers. */
export function runPreviewAnalysis(a: PreviewAnalysis, items: readonly { at: number; interaction: Interaction }[]): PreviewData {
  switch (a.analysis) {
    case 'freqDist': {
      const counts = new Map<string, number>();
      for (const { interaction } of items) {
        for (const v of new Set(values(readTarget(interaction, a.target)).map(String))) counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      return { ...a, output: top(counts, a.threshold) };
    }
    case 'wordCount': {
      const counts = new Map<string, number>();
      for (const { interaction } of items) {
        for (const v of values(readTarget(interaction, a.target))) {
          for (const word of String(v).toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
        }
      }
      return { ...a, output: top(counts, a.threshold) };
    }
    case 'targetVol': {
      const out: Record<string, number> = {};
      for (const { at, interaction } of items) {
        if (!present(readTarget(interaction, a.target))) continue;
        const key = bucketKey(at, a.interval);
        out[key] = (out[key] ?? 0) + 1;
      }
      return { ...a, output: out };
    }
    case 'numStats': {
      const out: Record<string, { count: number; max: number; sum: number; min: number }> = {};
      for (const { at, interaction } of items) {
        for (const v of values(readTarget(interaction, a.target))) {
          const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
          if (!Number.isFinite(n)) continue;
          const key = bucketKey(at, a.interval);
          const s = (out[key] ??= { count: 0, max: n, sum: 0, min: n });
          s.count += 1;
          s.sum += n;
          s.max = Math.max(s.max, n);
          s.min = Math.min(s.min, n);
        }
      }
      return { ...a, output: out };
    }
  }
}

import type { Interaction } from '../filters/index.ts';

/**
 * What the index reads from every interaction besides its targets: when it happened, who wrote it and
 * which service it comes from. Interactions arrive from clients, so every read is tolerant.
 */
function at(i: Interaction, path: string[]): unknown {
  let node: unknown = i;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The instant an interaction is indexed at: its `interaction.created_at` (epoch seconds or ms, or a date
 * string), never later than `now`; `now` when it has none.
 */
export function indexTimeOf(i: Interaction, now: number): number {
  const raw = at(i, ['interaction', 'created_at']);
  let ms: number | undefined;
  if (typeof raw === 'number' && Number.isFinite(raw)) ms = raw < 1e11 ? raw * 1000 : raw;
  else if (typeof raw === 'string' && raw.length > 0) {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    ms = Number.isFinite(n) ? (n < 1e11 ? n * 1000 : n) : Date.parse(raw);
  }
  if (ms === undefined || !Number.isFinite(ms) || ms > now) return now;
  return Math.floor(ms);
}

const AUTHOR_PATHS = [
  ['fb', 'author', 'id'],
  ['li', 'user', 'member', 'id'],
  ['interaction', 'author', 'id'],
  ['interaction', 'author', 'username'],
];

/** Who wrote it, for `unique_authors`; `undefined` when the interaction names no author. */
export function authorOf(i: Interaction): string | undefined {
  for (const p of AUTHOR_PATHS) {
    const v = at(i, p);
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number') return String(v);
  }
  return undefined;
}

/** The service an interaction belongs to, from its namespaces; `undefined` matches every service. */
export function serviceOf(i: Interaction): string | undefined {
  if (typeof i.fb === 'object' && i.fb !== null) return 'facebook';
  if (typeof i.li === 'object' && i.li !== null) return 'linkedin';
  return undefined;
}

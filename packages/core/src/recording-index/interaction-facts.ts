import type { Interaction } from '../filters/index.ts';

/*
 * What the index reads from every interaction besides its targets: when it happened, who wrote it and
 * which service it comes from. Interactions arrive from clients, so every read is tolerant.
 */

/** `o[key]` when `o` is an object (arrays included), else `undefined`. */
function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}

/**
 * The instant an interaction is indexed at: its `interaction.created_at` (epoch seconds or ms, or a date
 * string), never later than `now`; `now` when it has none.
 */
export function indexTimeOf(i: Interaction, now: number): number {
  const raw = field(i.interaction, 'created_at');
  let ms: number | undefined;
  if (typeof raw === 'number' && Number.isFinite(raw)) ms = raw < 1e11 ? raw * 1000 : raw;
  else if (typeof raw === 'string' && raw.length > 0) {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    ms = Number.isFinite(n) ? (n < 1e11 ? n * 1000 : n) : Date.parse(raw);
  }
  if (ms === undefined || !Number.isFinite(ms) || ms > now) return now;
  return Math.floor(ms);
}

/** An author's id as `unique_authors` counts it: a non-empty string, or a number spelled as text. */
function authorText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length > 0 ? v : undefined;
  return typeof v === 'number' ? String(v) : undefined;
}

/**
 * Who wrote it, for `unique_authors`; `undefined` when the interaction names no author. The first of
 * `fb.author.id`, `li.user.member.id`, `interaction.author.id` and `interaction.author.username` that
 * names one. Read field by field rather than by walking a list of paths: an analysis asks this of every
 * interaction it reads, and the walk's keyed reads were most of its cost.
 */
export function authorOf(i: Interaction): string | undefined {
  return (
    authorText(field(field(i.fb, 'author'), 'id')) ??
    authorText(field(field(field(i.li, 'user'), 'member'), 'id')) ??
    authorText(field(field(i.interaction, 'author'), 'id')) ??
    authorText(field(field(i.interaction, 'author'), 'username'))
  );
}

/** The service an interaction belongs to, from its namespaces; `undefined` matches every service. */
export function serviceOf(i: Interaction): string | undefined {
  if (typeof i.fb === 'object' && i.fb !== null) return 'facebook';
  if (typeof i.li === 'object' && i.li !== null) return 'linkedin';
  return undefined;
}

/*
 * Reading a target's values out of an interaction, as every condition does: dotted paths through nested
 * objects and arrays, and the forms a value may be read as (present, text, number).
 */

/** One interaction as clients send it: nested JSON (`{interaction: {content}, fb: {author: {age}}}`). */
export type Interaction = Record<string, unknown>;

const SPLIT_CACHE = new Map<string, string[]>();

/**
 * Reads a dotted target from a nested interaction. Arrays on the way are mapped, so `fb.topics.name`
 * over `fb.topics: [{name}, {name}]` yields every name. Where the first segment is absent, a flat key
 * equal to the whole path is read instead (stored interactions may be flattened).
 */
export function readTarget(i: Interaction, path: string): unknown {
  let segs = SPLIT_CACHE.get(path);
  if (!segs) {
    segs = path.split('.');
    if (SPLIT_CACHE.size > 10_000) SPLIT_CACHE.clear();
    SPLIT_CACHE.set(path, segs);
  }
  const v = i[segs[0]!];
  return v === undefined ? i[path] : readPath(v, segs, 1);
}

/**
 * A reader for one target, its path split once (the evaluator's hot path). The flat key is looked up
 * only when the nested path is absent: a miss on a dotted key is the slow kind of property lookup.
 */
export function targetReader(path: string): (i: Interaction) => unknown {
  const segs = path.split('.');
  const first = segs[0]!;
  if (segs.length === 2) {
    const b = segs[1]!;
    return (i) => {
      const v = i[first];
      if (v === undefined) return i[path];
      if (v === null || typeof v !== 'object') return undefined;
      return Array.isArray(v) ? readPath(v, segs, 1) : (v as Record<string, unknown>)[b];
    };
  }
  if (segs.length === 3) {
    const b = segs[1]!;
    const c = segs[2]!;
    return (i) => {
      const v = i[first];
      if (v === undefined) return i[path];
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return readPath(v, segs, 1);
      const w = (v as Record<string, unknown>)[b];
      if (w === null || w === undefined || typeof w !== 'object' || Array.isArray(w)) return readPath(w, segs, 2);
      return (w as Record<string, unknown>)[c];
    };
  }
  return (i) => {
    const v = i[first];
    return v === undefined ? i[path] : readPath(v, segs, 1);
  };
}

function readPath(v: unknown, segs: string[], from: number): unknown {
  for (let k = from; k < segs.length; k++) {
    if (v === null || v === undefined) return undefined;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const el of v) {
        const r = readPath(el, segs, k);
        if (Array.isArray(r)) out.push(...r);
        else if (r !== undefined && r !== null) out.push(r);
      }
      return out.length > 0 ? out : undefined;
    }
    if (typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[segs[k]!];
  }
  return v;
}

/** A target is present when it holds something: not undefined, null, an empty string or an empty list. */
export function present(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (Array.isArray(v)) return v.some(present);
  return true;
}

/** Whether any of the values (a scalar or a list) passes: list targets match element-wise. */
export function each(v: unknown, f: (x: unknown) => boolean): boolean {
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && x !== undefined && f(x)) return true;
    return false;
  }
  return v !== null && v !== undefined && f(v);
}

/** A value as text: strings as they are, numbers and booleans printed; anything else has none. */
export function textOf(x: unknown): string | undefined {
  return typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
}

/** A value as a number: numbers, and numeric strings; NaN otherwise (so every comparison fails). */
export function numberOf(x: unknown): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && x.trim() !== '') return Number(x);
  return NaN;
}

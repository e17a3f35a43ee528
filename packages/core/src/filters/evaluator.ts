import type { Argument, Condition, Definition, Expr, TagRule } from './ast.ts';
import type { FilterKind } from './parser.ts';
import { indexOfPhrase, normalizeUrl, tokenize, withinWindow } from './text-tokens.ts';
import { compileLinearRegex, wildcardPattern } from './linear-regex.ts';

export type Interaction = Record<string, unknown>;

/** What one interaction gets from a definition. */
export interface MatchResult {
  matched: boolean;
  /**
   * Every tag it gets: un-namespaced tags by name (`interaction.tags`), namespaced ones as
   * `<namespace>.<name>` (e.g. `device.model.iPhone`).
   */
  tags: string[];
  /** Namespaced tags by namespace path (`interaction.tag_tree.<path>`). */
  tagTree?: Record<string, string[]>;
  /** Scoring winners, `<branch>.<class>` (`interaction.ml.categories`). */
  categories?: string[];
}

/** Per-interaction scratch space: tokenized and lower-cased values shared by every condition. */
export interface Scope {
  i: Interaction;
  memo: Map<string, unknown> | undefined;
}

export type Test = (s: Scope) => boolean;

/** What an evaluator needs of another compiled definition (`stream` and `tags` inclusion). */
export interface IncludedFilter {
  test(s: Scope): boolean;
  applyTags(s: Scope, out: TagOutput): void;
  tagRuleCount: number;
}
export type Resolve = (hash: string) => IncludedFilter | undefined;

export interface TagOutput {
  tags: string[];
  /** What `tags` and the tree already hold, so a rule that fires twice adds nothing (kept in a set:
   * a classifier may give hundreds of tags to one interaction). */
  seen: Set<string>;
  tree: Record<string, string[]> | undefined;
  scores: Map<string, Map<string, number>> | undefined;
}

// ---------------------------------------------------------------------------------------------------
// Reading targets

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
function reader(path: string): (i: Interaction) => unknown {
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
function present(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (Array.isArray(v)) return v.some(present);
  return true;
}

function each(v: unknown, f: (x: unknown) => boolean): boolean {
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && x !== undefined && f(x)) return true;
    return false;
  }
  return v !== null && v !== undefined && f(v);
}

function textOf(x: unknown): string | undefined {
  return typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
}

function numberOf(x: unknown): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && x.trim() !== '') return Number(x);
  return NaN;
}

// ---------------------------------------------------------------------------------------------------
// Compiling conditions to closures

/** Token lists of a target's values, memoised per interaction and case mode. */
function tokensOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[][] {
  let t = s.memo?.get(key) as string[][] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      if (text) t.push(tokenize(cs ? text : text.toLowerCase()));
    }
  } else {
    const text = textOf(v);
    if (text) t.push(tokenize(cs ? text : text.toLowerCase()));
  }
  (s.memo ??= new Map()).set(key, t);
  return t;
}

function textsOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[] {
  let t = s.memo?.get(key) as string[] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      if (text !== undefined) t.push(cs ? text : text.toLowerCase());
    }
  } else {
    const text = textOf(v);
    if (text !== undefined) t.push(cs ? text : text.toLowerCase());
  }
  (s.memo ??= new Map()).set(key, t);
  return t;
}

function caseSensitive(c: Condition, kind: FilterKind): boolean {
  if (c.cs) return true;
  const sw = c.switches.find((w) => w.name === 'case');
  if (sw) return sw.arg === 'true';
  // Query filters compare ==, != and in case-sensitively (filter-language.md §2).
  return kind === 'query' && (c.op === '==' || c.op === '!=' || c.op === 'in');
}

function listItems(a: Argument | null): string[] {
  return a && a.kind === 'list' ? a.items : [];
}

function wildcardRegex(item: string, cs: boolean): (word: string) => boolean {
  // Many stars (`*a*a*a*b`) backtrack polynomially in a JavaScript RegExp; the automaton does not.
  const re = compileLinearRegex(wildcardPattern(item), { caseInsensitive: !cs, dotAll: true });
  return re.whole;
}

interface GeoPoint {
  lat: number;
  lon: number;
}

function geoOf(x: unknown): GeoPoint | undefined {
  if (typeof x === 'string') {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(x);
    return m ? { lat: Number(m[1]), lon: Number(m[2]) } : undefined;
  }
  if (Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number') return { lat: x[0], lon: x[1] };
  if (x && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    const lat = numberOf(o.latitude ?? o.lat);
    const lon = numberOf(o.longitude ?? o.lon ?? o.lng);
    if (Number.isFinite(lat) && Number.isFinite(lon)) return { lat, lon };
  }
  return undefined;
}

function haversineKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function insidePolygon(p: GeoPoint, poly: Array<[number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [yi, xi] = poly[i]!;
    const [yj, xj] = poly[j]!;
    if (yi > p.lat !== yj > p.lat && p.lon < ((xj - xi) * (p.lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

export function compileCondition(c: Condition, kind: FilterKind): Test {
  const target = c.target;
  const cs = caseSensitive(c, kind);
  const a = c.arg;
  const readI = reader(target);
  // Predicates are made once here, never per interaction: a closure per call is garbage per call.
  const on = (pred: (x: unknown) => boolean): Test => (s) => each(readI(s.i), pred);
  const fold = (x: string): string => (cs ? x : x.toLowerCase());
  const tokenKey = cs ? `T|${target}` : `t|${target}`;
  const textKey = cs ? `S|${target}` : `s|${target}`;
  const anyTokens = (pred: (tokens: string[]) => boolean): Test => (s) => {
    const lists = tokensOf(s, tokenKey, readI, cs);
    for (let k = 0; k < lists.length; k++) if (pred(lists[k]!)) return true;
    return false;
  };
  switch (c.op) {
    case 'exists':
      return (s) => present(readI(s.i));
    case 'contains': {
      const phrase = tokenize(fold((a as { value: string }).value));
      if (phrase.length === 1) {
        const w = phrase[0]!;
        return anyTokens((t) => t.includes(w));
      }
      return anyTokens((t) => indexOfPhrase(t, phrase) >= 0);
    }
    case 'contains_any': {
      const phrases = listItems(a).map((x) => tokenize(fold(x))).filter((p) => p.length > 0);
      const single = new Set(phrases.filter((p) => p.length === 1).map((p) => p[0]!));
      const multi = phrases.filter((p) => p.length > 1);
      return anyTokens((t) => {
        if (single.size > 0) for (const w of t) if (single.has(w)) return true;
        for (const p of multi) if (indexOfPhrase(t, p) >= 0) return true;
        return false;
      });
    }
    case 'contains_all': {
      const phrases = listItems(a).map((x) => tokenize(fold(x))).filter((p) => p.length > 0);
      return anyTokens((t) => {
        for (const p of phrases) if (p.length === 1 ? !t.includes(p[0]!) : indexOfPhrase(t, p) < 0) return false;
        return true;
      });
    }
    case 'contains_near': {
      const near = a as Extract<Argument, { kind: 'near' }>;
      const words = near.words.map((w) => fold(w));
      return anyTokens((t) => withinWindow(t, words, near.distance));
    }
    case 'wildcard': {
      const res = listItems(a).map((x) => wildcardRegex(x, cs));
      return anyTokens((t) => {
        for (const w of t) for (const whole of res) if (whole(w)) return true;
        return false;
      });
    }
    case 'substr': {
      const needle = fold((a as { value: string }).value);
      const has = (x: string): boolean => x.includes(needle);
      return (s) => textsOf(s, textKey, readI, cs).some(has);
    }
    case 'regex_partial':
    case 'regex_exact': {
      const src = (a as { value: string }).value;
      const re = compileLinearRegex(src);
      const key = `S|${target}`;
      const has = c.op === 'regex_exact' ? re.whole : re.find;
      return (s) => textsOf(s, key, readI, true).some(has);
    }
    case 'in': {
      if (a!.kind === 'ints') {
        const set = new Set(a!.values);
        return on((x) => set.has(numberOf(x)));
      }
      const items = listItems(a);
      const set = new Set(items.map(fold));
      return on((x) => {
        const t = textOf(x);
        return t !== undefined && set.has(fold(t));
      });
    }
    case 'url_in': {
      const set = new Set(listItems(a).map(normalizeUrl));
      return on((x) => typeof x === 'string' && set.has(normalizeUrl(x)));
    }
    case '==':
    case '!=': {
      const eq = c.op === '==';
      if (a!.kind === 'number') {
        const n = a!.value;
        return on((x) => (numberOf(x) === n) === eq);
      }
      const want = fold((a as { value: string }).value);
      return on((x) => {
        const t = textOf(x);
        return t !== undefined && (fold(t) === want) === eq;
      });
    }
    case '<':
    case '>':
    case '<=':
    case '>=': {
      const n = (a as { value: number }).value;
      const cmp = c.op === '<' ? (x: number) => x < n : c.op === '>' ? (x: number) => x > n : c.op === '<=' ? (x: number) => x <= n : (x: number) => x >= n;
      return on((x) => {
        const v = numberOf(x);
        return !Number.isNaN(v) && cmp(v);
      });
    }
    case 'geo_radius': {
      const g = a as Extract<Argument, { kind: 'geo' }>;
      const centre = { lat: g.points[0]![0], lon: g.points[0]![1] };
      const km = g.radius!;
      return on((x) => {
        const p = geoOf(x);
        return p !== undefined && haversineKm(centre, p) <= km;
      });
    }
    case 'geo_box': {
      const g = a as Extract<Argument, { kind: 'geo' }>;
      const [[lat1, left], [lat2, right]] = g.points as [[number, number], [number, number]];
      // Corners given the other way up still mean the same band of latitude.
      const top = Math.max(lat1, lat2);
      const bottom = Math.min(lat1, lat2);
      const lonInside = left <= right ? (lon: number) => lon >= left && lon <= right : (lon: number) => lon >= left || lon <= right;
      return on((x) => {
        const p = geoOf(x);
        return p !== undefined && p.lat <= top && p.lat >= bottom && lonInside(p.lon);
      });
    }
    case 'geo_polygon': {
      const g = a as Extract<Argument, { kind: 'geo' }>;
      return on((x) => {
        const p = geoOf(x);
        return p !== undefined && insidePolygon(p, g.points);
      });
    }
  }
}

/**
 * The words of a `contains` / `contains_any` whose every item is a single token, or undefined. Such
 * conditions under one `or` on the same target are merged into one set lookup per token: the order of
 * an `or`'s members never changes its answer, and a 40-keyword filter then reads the text once.
 */
function singleWords(e: Expr, kind: FilterKind): { key: string; target: string; cs: boolean; words: string[] } | undefined {
  if (e.type !== 'cond' || (e.op !== 'contains' && e.op !== 'contains_any')) return undefined;
  if (e.switches.some((w) => w.name !== 'case')) return undefined;
  const cs = caseSensitive(e, kind);
  const raw = e.arg?.kind === 'string' ? [e.arg.value] : listItems(e.arg);
  const words: string[] = [];
  for (const item of raw) {
    const t = tokenize(cs ? item : item.toLowerCase());
    if (t.length !== 1) return undefined;
    words.push(t[0]!);
  }
  return words.length > 0 ? { key: cs ? `T|${e.target}` : `t|${e.target}`, target: e.target, cs, words } : undefined;
}

function mergeWordTests(items: Expr[], kind: FilterKind): Test[] {
  const groups = new Map<string, { target: string; cs: boolean; words: Set<string> }>();
  for (const x of items) {
    const w = singleWords(x, kind);
    if (!w) continue;
    let g = groups.get(w.key);
    if (!g) groups.set(w.key, (g = { target: w.target, cs: w.cs, words: new Set() }));
    for (const word of w.words) g.words.add(word);
  }
  return [...groups.entries()].map(([key, g]) => {
    const readI = reader(g.target);
    const words = g.words;
    return (s: Scope) => {
      const lists = tokensOf(s, key, readI, g.cs);
      for (let k = 0; k < lists.length; k++) {
        const t = lists[k]!;
        for (let j = 0; j < t.length; j++) if (words.has(t[j]!)) return true;
      }
      return false;
    };
  });
}

export function compileExpr(e: Expr, kind: FilterKind, resolve: Resolve): Test {
  switch (e.type) {
    case 'cond':
      return compileCondition(e, kind);
    case 'not': {
      const t = compileExpr(e.item, kind, resolve);
      return (s) => !t(s);
    }
    case 'and': {
      const ts = e.items.map((x) => compileExpr(x, kind, resolve));
      if (ts.length === 2) {
        const [x, y] = ts as [Test, Test];
        return (s) => x(s) && y(s);
      }
      return (s) => {
        for (const t of ts) if (!t(s)) return false;
        return true;
      };
    }
    case 'or': {
      const ts = mergeWordTests(e.items, kind).concat(e.items.filter((x) => !singleWords(x, kind)).map((x) => compileExpr(x, kind, resolve)));
      if (ts.length === 1) return ts[0]!;
      if (ts.length === 2) {
        const [x, y] = ts as [Test, Test];
        return (s) => x(s) || y(s);
      }
      return (s) => {
        for (const t of ts) if (t(s)) return true;
        return false;
      };
    }
    case 'stream': {
      // Bound on first use: the included definition is found by its hash (a content address).
      let bound: IncludedFilter | undefined = resolve(e.hash);
      return (s) => {
        bound ??= resolve(e.hash);
        return bound !== undefined && bound.test(s);
      };
    }
  }
}

/**
 * Tag rules applied in order: named tags, namespaced tags, scores; included sets where they stand.
 * Classifiers hold thousands of rules that each look for a few words, so rules whose body is a
 * single-word `contains`/`contains_any` are indexed by word: the text is read once and only the rules
 * whose words occur fire, still in rule order.
 */
export function compileTagRules(rules: TagRule[], kind: FilterKind, resolve: Resolve): (s: Scope, out: TagOutput) => void {
  type Fire = (out: TagOutput) => void;
  const fires: Array<Fire | null> = [];
  const tests: Array<Test | null> = [];
  const includes: Array<((s: Scope, out: TagOutput) => void) | null> = [];
  const groups = new Map<string, { readI: (i: Interaction) => unknown; cs: boolean; byWord: Map<string, number[]> }>();
  rules.forEach((r, k) => {
    if (r.type === 'include') {
      let bound: IncludedFilter | undefined = resolve(r.hash);
      includes.push((s, out) => {
        bound ??= resolve(r.hash);
        bound?.applyTags(s, out);
      });
      fires.push(null);
      tests.push(null);
      return;
    }
    includes.push(null);
    fires.push(fireOf(r));
    const words = singleWords(r.body, kind);
    if (!words) {
      tests.push(compileExpr(r.body, kind, resolve));
      return;
    }
    tests.push(null);
    let g = groups.get(words.key);
    if (!g) groups.set(words.key, (g = { readI: reader(words.target), cs: words.cs, byWord: new Map() }));
    for (const w of words.words) {
      const list = g.byWord.get(w);
      if (!list) g.byWord.set(w, [k]);
      else if (list[list.length - 1] !== k) list.push(k);
    }
  });
  // Rules tested one by one (and inclusions), in order; indexed rules join them when their words occur.
  const always: number[] = [];
  for (let k = 0; k < rules.length; k++) if (includes[k] || tests[k]) always.push(k);
  const run = (k: number, s: Scope, out: TagOutput): void => {
    const inc = includes[k];
    if (inc) inc(s, out);
    else if (!tests[k] || tests[k]!(s)) fires[k]!(out);
  };
  if (groups.size === 0) {
    return (s, out) => {
      for (const k of always) run(k, s, out);
    };
  }
  return (s, out) => {
    const hits: number[] = [];
    for (const [key, g] of groups) {
      const lists = tokensOf(s, key, g.readI, g.cs);
      for (const tokens of lists) {
        for (const t of tokens) {
          const ks = g.byWord.get(t);
          if (ks) for (const k of ks) hits.push(k);
        }
      }
    }
    hits.sort((a, b) => a - b);
    // Merge the two ascending lists, skipping repeated hits.
    let h = 0;
    let last = -1;
    for (let a = 0; a <= always.length; a++) {
      const next = a < always.length ? always[a]! : Infinity;
      while (h < hits.length && hits[h]! < next) {
        const k = hits[h++]!;
        if (k !== last) run(k, s, out);
        last = k;
      }
      if (next !== Infinity) run(next, s, out);
    }
  };
}

function fireOf(r: Exclude<TagRule, { type: 'include' }>): (out: TagOutput) => void {
  if (r.type === 'score') {
    const branch = r.namespace.slice(0, -1).join('.');
    const cls = r.namespace[r.namespace.length - 1]!;
    return (out) => {
      out.scores ??= new Map();
      let b = out.scores.get(branch);
      if (!b) out.scores.set(branch, (b = new Map()));
      b.set(cls, (b.get(cls) ?? 0) + r.score);
    };
  }
  const path = r.namespace.join('.');
  const flat = path === '' ? r.name : `${path}.${r.name}`;
  const treeKey = `${path}\u0000${r.name}`;
  return (out) => {
    if (!out.seen.has(flat)) {
      out.seen.add(flat);
      out.tags.push(flat);
    }
    if (path !== '' && !out.seen.has(treeKey)) {
      out.seen.add(treeKey);
      out.tree ??= {};
      (out.tree[path] ??= []).push(r.name);
    }
  };
}

/** Per branch the highest score wins; a tie has no winner. */
export function scoringWinners(scores: Map<string, Map<string, number>>): string[] {
  const out: string[] = [];
  for (const [branch, classes] of scores) {
    let best: string | undefined;
    let bestScore = -Infinity;
    let tie = false;
    for (const [cls, score] of classes) {
      if (score > bestScore) {
        best = cls;
        bestScore = score;
        tie = false;
      } else if (score === bestScore) tie = true;
    }
    if (best !== undefined && !tie) out.push(branch === '' ? best : `${branch}.${best}`);
  }
  return out;
}

export interface Evaluator {
  test: Test;
  applyTags(s: Scope, out: TagOutput): void;
  match(i: Interaction, memo?: Map<string, unknown>): MatchResult;
}

/** Answers without tags are all alike: one of each (frozen) serves every interaction a filter judges. */
const NO_MATCH: MatchResult = Object.freeze({ matched: false, tags: Object.freeze([]) as unknown as string[] });
const MATCH_NO_TAGS: MatchResult = Object.freeze({ matched: true, tags: Object.freeze([]) as unknown as string[] });

export function compileDefinition(d: Definition, kind: FilterKind, resolve: Resolve): Evaluator {
  const test: Test = d.body ? compileExpr(d.body, kind, resolve) : () => false;
  const applyTags = d.tags.length > 0 ? compileTagRules(d.tags, kind, resolve) : () => {};
  const hasTags = d.tags.length > 0;
  return {
    test,
    applyTags,
    match(i, memo) {
      const s: Scope = { i, memo };
      if (!test(s)) return NO_MATCH;
      if (!hasTags) return MATCH_NO_TAGS;
      const out: TagOutput = { tags: [], seen: new Set(), tree: undefined, scores: undefined };
      applyTags(s, out);
      const result: MatchResult = { matched: true, tags: out.tags };
      if (out.tree) result.tagTree = out.tree;
      if (out.scores) result.categories = scoringWinners(out.scores);
      return result;
    },
  };
}

/**
 * The interaction as the index keeps it: the filter's tags written where analysis reads them
 * (`interaction.tags`, `interaction.tag_tree.*`, `interaction.ml.categories`).
 */
export function applyTags(i: Interaction, r: MatchResult): Interaction {
  if (r.tags.length === 0 && !r.categories?.length) return i;
  const inner = { ...((i.interaction as Record<string, unknown> | undefined) ?? {}) };
  const plain = r.tagTree ? r.tags.filter((t) => !Object.entries(r.tagTree!).some(([ns, names]) => names.some((n) => `${ns}.${n}` === t))) : r.tags;
  if (plain.length > 0) inner.tags = plain;
  if (r.tagTree) {
    const tree: Record<string, unknown> = {};
    for (const [path, names] of Object.entries(r.tagTree)) {
      const segs = path.split('.');
      let node = tree;
      for (const seg of segs.slice(0, -1)) node = (node[seg] ??= {}) as Record<string, unknown>;
      node[segs[segs.length - 1]!] = names;
    }
    inner.tag_tree = tree;
  }
  if (r.categories?.length) inner.ml = { ...((inner.ml as Record<string, unknown> | undefined) ?? {}), categories: r.categories };
  return { ...i, interaction: inner };
}

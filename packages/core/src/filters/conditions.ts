import type { Argument, Condition } from './ast.ts';
import { geoOf, haversineKm, insidePolygon } from './geo.ts';
import { caseSensitive, conditionAutomata } from './regex-programs.ts';
import type { FilterKind } from './parser.ts';
import type { Scope, Test } from './scope.ts';
import { each, numberOf, present, targetReader, textOf } from './target-reader.ts';
import { textsOf, tokensOf } from './target-tokens.ts';
import { hasPhraseAt, nearestSpan, normalizeUrl, PLACES_FROM_TOKENS, tokenize, tokenPlaces, wordPlaces } from './text-tokens.ts';

/*
 * One condition (`target op argument`) compiled to a test: the argument is read, tokenised and folded
 * once here; per interaction only the target's values are read (memoised in the scope).
 */

export { caseSensitive };

/** The items of a list argument; none for any other kind. */
export function listItems(a: Argument | null): string[] {
  return a && a.kind === 'list' ? a.items : [];
}

/** A phrase's longest token ('' for no token: found in any text, so it rules nothing out). */
function longest(phrase: string[]): string {
  let out = '';
  for (const t of phrase) if (t.length > out.length) out = t;
  return out;
}

/** What reading a target's values costs: the length of each text, one for anything else. */
function valueWork(v: unknown): number {
  if (typeof v === 'string') return v.length + 1;
  if (!Array.isArray(v)) return 1;
  let n = 1;
  for (const x of v) n += typeof x === 'string' ? x.length + 1 : 1;
  return n;
}

/**
 * What any test costs before it reads a character: its look-ups of the target and of the interaction's
 * memo, some microseconds, about what 100 characters through a pattern cost (`WorkMeter`).
 */
export const CONDITION_WORK = 250;

export function compileCondition(c: Condition, kind: FilterKind): Test {
  const test = conditionTest(c, kind);
  return (s) => {
    if (s.meter) s.meter.work += CONDITION_WORK;
    return test(s);
  };
}

function conditionTest(c: Condition, kind: FilterKind): Test {
  const target = c.target;
  const cs = caseSensitive(c, kind);
  const a = c.arg;
  const readI = targetReader(target);
  // Predicates are made once here, never per interaction: a closure per call is garbage per call.
  // Every test charges the meter (`WorkMeter`) for what it reads: a value compared costs its length
  // (`perValue` times what each is compared with), a token list scanned its tokens times `perToken`.
  const on = (pred: (x: unknown) => boolean, perValue = 1): Test => (s) => {
    const v = readI(s.i);
    if (s.meter) s.meter.work += valueWork(v) * perValue;
    return each(v, pred);
  };
  const fold = (x: string): string => (cs ? x : x.toLowerCase());
  const tokenKey = cs ? `T|${target}` : `t|${target}`;
  const textKey = cs ? `S|${target}` : `s|${target}`;
  // The text operators read where their words stand, not the text again: a thousand conditions on a
  // 60 KB text cost their words' occurrences, not a thousand scans.
  const placesKey = `p|${tokenKey}`;
  const anyPlaces = (pred: (tokens: string[], places: Map<string, number[]> | undefined, meter: Scope['meter']) => boolean): Test => (s) => {
    const lists = tokensOf(s, tokenKey, readI, cs);
    let places = s.memo?.get(placesKey) as (Map<string, number[]> | undefined)[] | undefined;
    if (!places) {
      places = lists.map((t) => (t.length < PLACES_FROM_TOKENS ? undefined : tokenPlaces(t)));
      (s.memo ??= new Map()).set(placesKey, places);
      if (s.meter) for (const t of lists) if (t.length >= PLACES_FROM_TOKENS) s.meter.work += t.length;
    }
    for (let k = 0; k < lists.length; k++) if (pred(lists[k]!, places[k], s.meter)) return true;
    return false;
  };
  // A phrase's tokens are pieces of the text they came from (folded the same way), so a phrase can
  // occur only where its longest token is a substring of one of the target's texts. Most interactions
  // hold none of a filter's words: one search of the text (folded once per interaction and target,
  // shared in the memo as the tokens are) rules them out without tokenizing them.
  const found = (s: Scope, probe: string): boolean => {
    const texts = textsOf(s, textKey, readI, cs);
    for (let k = 0; k < texts.length; k++) {
      if (s.meter) s.meter.work += texts[k]!.length;
      if (texts[k]!.includes(probe)) return true;
    }
    return false;
  };
  switch (c.op) {
    case 'exists':
      return (s) => present(readI(s.i));
    case 'contains': {
      const phrase = tokenize(fold((a as { value: string }).value));
      const probe = longest(phrase);
      const inTokens = anyPlaces((t, places, meter) => {
        const r = hasPhraseAt(t, places, phrase);
        if (meter) meter.work += r.read;
        return r.found;
      });
      return (s) => found(s, probe) && inTokens(s);
    }
    case 'contains_any': {
      const phrases = listItems(a).map((x) => tokenize(fold(x))).filter((p) => p.length > 0);
      const probes = phrases.map(longest);
      const inTokens = anyPlaces((t, places, meter) => {
        for (const p of phrases) {
          const r = hasPhraseAt(t, places, p);
          if (meter) meter.work += r.read;
          if (r.found) return true;
        }
        return false;
      });
      return (s) => {
        for (let k = 0; k < probes.length; k++) if (found(s, probes[k]!)) return inTokens(s);
        return false;
      };
    }
    case 'contains_all': {
      const phrases = listItems(a).map((x) => tokenize(fold(x))).filter((p) => p.length > 0);
      const probes = phrases.map(longest);
      const inTokens = anyPlaces((t, places, meter) => {
        for (const p of phrases) {
          const r = hasPhraseAt(t, places, p);
          if (meter) meter.work += r.read;
          if (!r.found) return false;
        }
        return true;
      });
      return (s) => {
        for (let k = 0; k < probes.length; k++) if (!found(s, probes[k]!)) return false;
        return inTokens(s);
      };
    }
    case 'contains_near': {
      const near = a as Extract<Argument, { kind: 'near' }>;
      const words = near.words.map((w) => fold(w));
      const placesKey = `n|${tokenKey}`;
      // Conditions on the same words differ only by distance: they share one span per interaction.
      const spanKey = `m|${tokenKey}|${[...new Set(words)].sort().join('\u0000')}`;
      return (s) => {
        let spans = s.memo?.get(spanKey) as number[] | undefined;
        if (!spans) {
          const lists = tokensOf(s, tokenKey, readI, cs);
          let places = s.memo?.get(placesKey) as (Map<string, number[]> | undefined)[] | undefined;
          if (!places) {
            places = lists.map((t) => (t.length < PLACES_FROM_TOKENS ? undefined : wordPlaces(t)));
            (s.memo ??= new Map()).set(placesKey, places);
            if (s.meter) for (const t of lists) if (t.length >= PLACES_FROM_TOKENS) s.meter.work += t.length;
          }
          spans = [];
          for (let k = 0; k < places.length; k++) {
            const r = nearestSpan(lists[k]!, places[k], words);
            if (s.meter) s.meter.work += words.length + r.read;
            spans.push(r.span);
          }
          (s.memo ??= new Map()).set(spanKey, spans);
        }
        for (const span of spans) if (span <= near.distance) return true;
        return false;
      };
    }
    case 'wildcard': {
      const res = conditionAutomata(c, kind);
      const wholes = res.map((re) => re.whole);
      // What one token costs against every item: the work meter counts characters × instructions.
      const perChar = res.reduce((n, re) => n + re.instructions, 0);
      return (s) => {
        const lists = tokensOf(s, tokenKey, readI, cs);
        for (let k = 0; k < lists.length; k++) {
          for (const w of lists[k]!) {
            if (s.meter) s.meter.work += w.length * perChar;
            for (const whole of wholes) if (whole(w)) return true;
          }
        }
        return false;
      };
    }
    case 'substr': {
      const needle = fold((a as { value: string }).value);
      return (s) => {
        const texts = textsOf(s, textKey, readI, cs);
        for (let k = 0; k < texts.length; k++) {
          if (s.meter) s.meter.work += texts[k]!.length + needle.length;
          if (texts[k]!.includes(needle)) return true;
        }
        return false;
      };
    }
    case 'regex_partial':
    case 'regex_exact': {
      const re = conditionAutomata(c, kind)[0]!;
      const key = `S|${target}`;
      const has = c.op === 'regex_exact' ? re.whole : re.find;
      const n = re.instructions;
      return (s) => {
        const texts = textsOf(s, key, readI, true);
        for (let k = 0; k < texts.length; k++) {
          if (s.meter) s.meter.work += texts[k]!.length * n;
          if (has(texts[k]!)) return true;
        }
        return false;
      };
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
      // Each point is tested against every edge.
      return on((x) => {
        const p = geoOf(x);
        return p !== undefined && insidePolygon(p, g.points);
      }, g.points.length);
    }
  }
}

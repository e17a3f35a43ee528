import type { Argument, Condition } from './ast.ts';
import { geoOf, haversineKm, insidePolygon } from './geo.ts';
import { caseSensitive, conditionAutomata } from './regex-programs.ts';
import type { FilterKind } from './parser.ts';
import type { Test } from './scope.ts';
import { each, numberOf, present, targetReader, textOf } from './target-reader.ts';
import { textsOf, tokensOf } from './target-tokens.ts';
import { indexOfPhrase, normalizeUrl, tokenize, withinWindow } from './text-tokens.ts';

/*
 * One condition (`target op argument`) compiled to a test: the argument is read, tokenised and folded
 * once here; per interaction only the target's values are read (memoised in the scope).
 */

export { caseSensitive };

/** The items of a list argument; none for any other kind. */
export function listItems(a: Argument | null): string[] {
  return a && a.kind === 'list' ? a.items : [];
}

export function compileCondition(c: Condition, kind: FilterKind): Test {
  const target = c.target;
  const cs = caseSensitive(c, kind);
  const a = c.arg;
  const readI = targetReader(target);
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
      const res = conditionAutomata(c, kind);
      const wholes = res.map((re) => re.whole);
      // What one token costs against every item: the work meter counts characters × instructions.
      const perChar = res.reduce((n, re) => n + re.instructions, 0);
      return (s) => {
        const lists = tokensOf(s, tokenKey, readI, cs);
        for (let k = 0; k < lists.length; k++) {
          for (const w of lists[k]!) {
            if (s.meter) s.meter.regexWork += w.length * perChar;
            for (const whole of wholes) if (whole(w)) return true;
          }
        }
        return false;
      };
    }
    case 'substr': {
      const needle = fold((a as { value: string }).value);
      const has = (x: string): boolean => x.includes(needle);
      return (s) => textsOf(s, textKey, readI, cs).some(has);
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
          if (s.meter) s.meter.regexWork += texts[k]!.length * n;
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
      return on((x) => {
        const p = geoOf(x);
        return p !== undefined && insidePolygon(p, g.points);
      });
    }
  }
}

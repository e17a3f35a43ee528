/**
 * The language's tokenization (docs/filters.md#operators-what-match-does): a run of letters and digits is one token, every
 * other visible character is a token of its own, whitespace only separates. Arguments of the text
 * operators are tokenized the same way, so `contains "50%"` looks for `50` then `%`.
 */
const WORDISH = /[\p{L}\p{N}\p{M}]/u;

/** ASCII letters and digits by table; anything else by its Unicode category. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0;

function isWordChar(c: number, text: string, i: number): boolean {
  if (c < 128) return ASCII_WORD[c] === 1;
  return WORDISH.test(text[i]!);
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200b);
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? ASCII_WORD[c] === 1 : WORDISH.test(text[i]!)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
    if (isSpace(c)) continue;
    // A surrogate pair is one symbol (emoji): keep it whole.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      out.push(text.slice(i, i + 2));
      i++;
    } else out.push(text[i]!);
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

/** Where a phrase (a token sequence) starts in `tokens`, or -1. */
export function indexOfPhrase(tokens: string[], phrase: string[], from = 0): number {
  const first = phrase[0];
  const m = phrase.length;
  if (m === 0) return -1;
  for (let i = tokens.indexOf(first!, from); i >= 0 && i + m <= tokens.length; i = tokens.indexOf(first!, i + 1)) {
    let k = 1;
    while (k < m && tokens[i + k] === phrase[k]) k++;
    if (k === m) return i;
  }
  return -1;
}

/**
 * Whether every word occurs inside some window of `distance` consecutive words (the window counts the
 * words themselves; punctuation tokens are not words and take no place in it).
 */
export function withinWindow(tokens: string[], words: string[], distance: number): boolean {
  const want = new Map<string, number>();
  words.forEach((w) => {
    if (!want.has(w)) want.set(w, want.size);
  });
  const k = want.size;
  const counts = new Array<number>(k).fill(0);
  let covered = 0;
  let left = 0;
  const hits: Array<[number, number]> = [];
  let position = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const c = t.charCodeAt(0);
    if (!isWordChar(c, t, 0)) continue;
    const w = want.get(t);
    if (w !== undefined) hits.push([position, w]);
    position++;
  }
  for (let r = 0; r < hits.length; r++) {
    const [, w] = hits[r]!;
    if (counts[w]!++ === 0) covered++;
    while (covered === k) {
      const span = hits[r]![0] - hits[left]![0] + 1;
      if (span <= distance) return true;
      const lw = hits[left]![1];
      if (--counts[lw]! === 0) covered--;
      left++;
    }
  }
  return false;
}

/**
 * Token lists shorter than this are scanned rather than indexed: building the places of a short text
 * costs more than the few scans its conditions make (most interactions are a sentence or two).
 */
export const PLACES_FROM_TOKENS = 64;

/** Where each token of a list stands (its indexes): built once per interaction and target, like `wordPlaces`. */
export function tokenPlaces(tokens: string[]): Map<string, number[]> {
  const places = new Map<string, number[]>();
  for (let i = 0; i < tokens.length; i++) {
    const at = places.get(tokens[i]!);
    if (at) at.push(i);
    else places.set(tokens[i]!, [i]);
  }
  return places;
}

/**
 * Whether a phrase occurs in `tokens`, read from the places of its first token (or, without places,
 * by a scan): the same answer as `indexOfPhrase(...) >= 0`. Returns what it read, to charge the meter.
 */
export function hasPhraseAt(tokens: string[], places: Map<string, number[]> | undefined, phrase: string[]): { found: boolean; read: number } {
  const m = phrase.length;
  if (!places) return { found: indexOfPhrase(tokens, phrase) >= 0, read: (tokens.length + 1) * Math.max(1, m) };
  const starts = m === 0 ? undefined : places.get(phrase[0]!);
  if (!starts) return { found: false, read: 1 };
  let read = 1;
  for (const i of starts) {
    let k = 1;
    while (k < m && tokens[i + k] === phrase[k]) k++;
    read += k;
    if (k === m) return { found: true, read };
  }
  return { found: false, read };
}

/**
 * Where each word of a token list stands, counting words only (punctuation tokens take no place): built
 * once per interaction and target, so that a `contains_near` reads the places of its own words and not
 * the whole text again (a thousand of them on a 60 KB text rescanned it a thousand times).
 */
export function wordPlaces(tokens: string[]): Map<string, number[]> {
  const places = new Map<string, number[]>();
  let position = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!isWordChar(t.charCodeAt(0), t, 0)) continue;
    const at = places.get(t);
    if (at) at.push(position);
    else places.set(t, [position]);
    position++;
  }
  return places;
}

/**
 * The fewest consecutive words (punctuation takes no place) holding every one of `words`: `contains_near`
 * with distance d matches where this is at most d (`withinWindow`). One figure for any distance, so
 * the conditions on the same words share it (kept in the interaction's memo). Read from `wordPlaces`
 * where the words are rare, from one pass over the tokens where they are common enough that sorting
 * their places would cost more (or no places were built: a short text); `read` is what it read, to
 * charge the meter.
 */
export function nearestSpan(tokens: string[], places: Map<string, number[]> | undefined, words: string[]): { span: number; read: number } {
  const distinct = [...new Set(words)];
  let total = tokens.length;
  if (places) {
    total = 0;
    for (const w of distinct) {
      const at = places.get(w);
      if (!at) return { span: Infinity, read: distinct.length };
      total += at.length;
    }
  }
  const index = new Map(distinct.map((w, k) => [w, k]));
  const hits: Array<[number, number]> = [];
  let read: number;
  if (!places || total * 4 > tokens.length) {
    read = tokens.length;
    let position = 0;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (!isWordChar(t.charCodeAt(0), t, 0)) continue;
      const w = index.get(t);
      if (w !== undefined) hits.push([position, w]);
      position++;
    }
  } else {
    read = 4 * total;
    for (let w = 0; w < distinct.length; w++) for (const p of places!.get(distinct[w]!)!) hits.push([p, w]);
    hits.sort((a, b) => a[0] - b[0]);
  }
  const k = distinct.length;
  const counts = new Array<number>(k).fill(0);
  let covered = 0;
  let left = 0;
  let span = Infinity;
  for (let r = 0; r < hits.length; r++) {
    if (counts[hits[r]![1]]!++ === 0) covered++;
    while (covered === k) {
      span = Math.min(span, hits[r]![0] - hits[left]![0] + 1);
      if (--counts[hits[left]![1]]! === 0) covered--;
      left++;
    }
  }
  return { span, read };
}

/** The platform's link normalisation for `url_in` (docs/filters.md#operators-what-match-does). */
export function normalizeUrl(url: string): string {
  let u = url.trim().toLowerCase();
  u = u.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  u = u.replace(/^www\./, '');
  u = u.replace(/#.*$/, '');
  const q = u.indexOf('?');
  if (q >= 0) {
    const kept = u
      .slice(q + 1)
      .split('&')
      .filter((p) => p !== '' && !p.startsWith('utm_'));
    u = u.slice(0, q) + (kept.length > 0 ? `?${kept.join('&')}` : '');
  }
  u = u.replace(/\/(?:index\.(?:php|html|htm|aspx|asp)|default\.(?:html|htm|aspx|asp))(?=$|\?)/, '/');
  u = u.replace(/\/+(?=$|\?)/, '');
  return u;
}

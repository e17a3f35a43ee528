/** A content coding a fixed body can be sent in; `identity` is its bytes as they are. */
export type ContentCoding = 'gzip' | 'identity';

/**
 * The coding to answer with, of `offered` (most wanted first: on equal q-values the earlier wins), read
 * from a request's `Accept-Encoding` (RFC 9110 §12.5.3): the highest q-value wins, `*` stands for the
 * codings not named, `q=0` refuses. `identity` not named is acceptable but wanted least, so any coding
 * asked for beats it. With no field, or nothing offered acceptable, identity: a client that sends no
 * field may decode nothing, and bytes it can read serve it better than a 406.
 */
export function chooseCoding(field: string | undefined, offered: readonly ContentCoding[]): ContentCoding {
  if (field === undefined || field === '') return 'identity';
  const named = new Map<string, number>();
  let star: number | undefined;
  for (const item of field.split(',')) {
    const parts = item.split(';');
    let name = parts[0]!.trim().toLowerCase();
    if (name === '') continue;
    // RFC 9110 §8.4.1.3: x-gzip is gzip.
    if (name === 'x-gzip') name = 'gzip';
    let q = 1;
    for (let i = 1; i < parts.length; i++) {
      const eq = parts[i]!.indexOf('=');
      if (eq > 0 && parts[i]!.slice(0, eq).trim().toLowerCase() === 'q') q = qValue(parts[i]!.slice(eq + 1));
    }
    // A q-value that does not read is no preference at all: the entry is dropped, not taken as 1.
    if (Number.isNaN(q)) continue;
    if (name === '*') star = Math.max(star ?? 0, q);
    else named.set(name, Math.max(named.get(name) ?? 0, q));
  }
  let best: ContentCoding = 'identity';
  let bestQ = 0;
  for (const coding of offered) {
    const q = named.get(coding) ?? star ?? (coding === 'identity' ? LEAST : 0);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** Below every q-value a field can give (three decimals at most): identity's, when the field does not name it. */
const LEAST = 0.0001;

/** `0` to `1` with up to three decimals (RFC 9110 §12.4.2); anything else NaN. */
function qValue(text: string): number {
  const t = text.trim();
  return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(t) ? Number(t) : NaN;
}

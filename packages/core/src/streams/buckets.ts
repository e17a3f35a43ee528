/**
 * A record of many keys kept immutably in 256 buckets by a digest of the key, so that a change
 * copies one small bucket and the bucket index rather than every key: a connection's 5,000 hashes are
 * subscribed one event at a time, and copying them whole each time made that quadratic. Plain JSON, as
 * states must be (snapshots, golden fixtures).
 */
export type Buckets<T> = Record<string, Record<string, T>>;

/** The buckets' names, made once: every read and change of a bucket names one. */
const BUCKET_NAMES = Array.from({ length: 256 }, (_, k) => 'b' + k.toString(16));

/** FNV-1a of the key's characters, folded to one of 256 buckets (any key spreads, not only random hashes). */
function bucketOf(key: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key.charCodeAt(k), 0x01000193);
  return BUCKET_NAMES[(h >>> 0) & 0xff]!;
}

export function bucketGet<T>(b: Buckets<T>, key: string): T | undefined {
  const at = bucketOf(key);
  const bucket = Object.hasOwn(b, at) ? b[at]! : undefined;
  return bucket && Object.hasOwn(bucket, key) ? bucket[key] : undefined;
}

/**
 * A copy of the record `r` with `key` set to `value` (`r` unchanged), its keys in the order a spread
 * (`{ ...r, [key]: value }`) gives. The copy has no prototype: V8 keeps such an object as a dictionary
 * from the start, where a plain object given a key never seen before (a connection's id, a hash) grows
 * its shapes' transitions, and a spread of it took the slow path: a reconnecting stream consumer makes a
 * few of these every event. Only `Object.hasOwn`/`own` and `Object.keys` read them, and as JSON they
 * are the same.
 */
export function recordWith<T>(r: Readonly<Record<string, T>> | undefined, key: string, value: T): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (r) for (const k of Object.keys(r)) out[k] = r[k]!;
  out[key] = value;
  return out;
}

/** A copy of the record `r` without `key` (`r` unchanged), its other keys in their order. */
export function recordWithout<T>(r: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const k of Object.keys(r)) if (k !== key) out[k] = r[k]!;
  return out;
}

/** `b` with `key` set to `value` (`b` unchanged). */
export function bucketSet<T>(b: Buckets<T>, key: string, value: T): Buckets<T> {
  const at = bucketOf(key);
  return recordWith(b, at, recordWith(Object.hasOwn(b, at) ? b[at] : undefined, key, value));
}

/** `b` without `key` (`b` unchanged). */
export function bucketDelete<T>(b: Buckets<T>, key: string): Buckets<T> {
  const at = bucketOf(key);
  if (!Object.hasOwn(b, at) || !Object.hasOwn(b[at]!, key)) return b;
  const bucket = recordWithout(b[at]!, key);
  for (const _ in bucket) return recordWith(b, at, bucket);
  return recordWithout(b, at);
}

export function* bucketEntries<T>(b: Buckets<T>): Generator<[string, T]> {
  for (const bucket of Object.values(b)) for (const key of Object.keys(bucket)) yield [key, bucket[key]!];
}

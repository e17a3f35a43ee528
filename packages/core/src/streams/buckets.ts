/**
 * A record of many keys kept immutably in 256 buckets by a digest of the key, so that a change
 * copies one small bucket and the bucket index rather than every key: a connection's 5,000 hashes are
 * subscribed one event at a time, and copying them whole each time made that quadratic. Plain JSON, as
 * states must be (snapshots, golden fixtures).
 */
export type Buckets<T> = Record<string, Record<string, T>>;

/** FNV-1a of the key's characters, folded to one of 256 buckets (any key spreads, not only random hashes). */
function bucketOf(key: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key.charCodeAt(k), 0x01000193);
  return 'b' + ((h >>> 0) & 0xff).toString(16);
}

export function bucketGet<T>(b: Buckets<T>, key: string): T | undefined {
  const bucket = Object.hasOwn(b, bucketOf(key)) ? b[bucketOf(key)]! : undefined;
  return bucket && Object.hasOwn(bucket, key) ? bucket[key] : undefined;
}

/** `b` with `key` set to `value` (`b` unchanged). */
export function bucketSet<T>(b: Buckets<T>, key: string, value: T): Buckets<T> {
  const at = bucketOf(key);
  return { ...b, [at]: { ...(Object.hasOwn(b, at) ? b[at] : undefined), [key]: value } };
}

/** `b` without `key` (`b` unchanged). */
export function bucketDelete<T>(b: Buckets<T>, key: string): Buckets<T> {
  const at = bucketOf(key);
  if (!Object.hasOwn(b, at) || !Object.hasOwn(b[at]!, key)) return b;
  const bucket = { ...b[at] };
  delete bucket[key];
  const out = { ...b };
  if (Object.keys(bucket).length === 0) delete out[at];
  else out[at] = bucket;
  return out;
}

export function* bucketEntries<T>(b: Buckets<T>): Generator<[string, T]> {
  for (const bucket of Object.values(b)) for (const key of Object.keys(bucket)) yield [key, bucket[key]!];
}

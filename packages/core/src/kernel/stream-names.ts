/**
 * Names built from a prefix and a caller's name (`credits:ada`), handed back as the same string each
 * time: a map keyed by a string hashes it once and keeps the hash in it, so a stream name reused call
 * after call is never hashed again (a name built anew each call was a tenth of a charged call, hashed by
 * the loader's cache and again by the store). Bounded: past `capacity` names the memory starts over.
 */
export function streamNamer(prefix: string, capacity = 65_536): (name: string) => string {
  let memo = new Map<string, string>();
  return (name) => {
    let built = memo.get(name);
    if (built === undefined) {
      built = prefix + name;
      if (memo.size >= capacity) memo = new Map();
      memo.set(name, built);
    }
    return built;
  };
}

// Which stored events were one atomic write. The store keeps no write id, so the rule reads the
// envelope: one write's events have consecutive positions and the one time the call read from the
// clock, belong to one account (global streams such as `filter:` join any), and a charge comes first
// (each call's write opens with its `CreditsCharged`, so a second charge starts another write). An
// event of an `account:` stream is a write of its own: only the operator's commands write there (open,
// package, deny, allow), one event each, and a call only reads it. Writes the rule cannot tell apart: two
// uncharged writes of one account at the same instant (the firehose's feed right after a call on a
// manual clock) show as one.
// Plain JavaScript so the page and the server group events by the same rule.

/** The account a stream belongs to, or null for a stream every account shares. */
export function ownerOf(stream) {
  const colon = stream.indexOf(':');
  if (colon < 0) return null;
  const kind = stream.slice(0, colon);
  if (!OWNED.has(kind)) return null;
  const rest = stream.slice(colon + 1);
  return PER_DAY.has(kind) ? rest.replace(/:\d{4}-\d{2}-\d{2}$/, '') : rest;
}

// The page cannot import the core, so this mirrors its `accountOfStream`; writes.spec.ts holds the two
// to every prefix of `PLATFORM_AGGREGATES`, so an aggregate added there fails that test until named here.
const OWNED = new Set(['account', 'credits', 'recordings', 'historics', 'previews', 'push', 'sources', 'identities', 'tasks', 'firehose', 'capacity', 'filter-budget', 'idempotency', 'streams', 'stream-matches']);
const PER_DAY = new Set(['capacity', 'filter-budget']);

const alone = (e) => e.stream.startsWith('account:');

/** The call a write records: the endpoint its charge names and what it cost, or null (no charge). */
export function callOf(first) {
  if (first.type !== 'CreditsCharged') return null;
  const lines = Array.isArray(first.data?.lines) ? first.data.lines : [];
  const account = lines.find((l) => l.key === 'general' || l.key === 'analyze') ?? lines[0];
  return { endpoint: String(first.data?.endpoint ?? '?'), cost: account ? Number(account.cost) : 0, allowance: account ? String(account.key) : null };
}

/**
 * Groups events given in global order into writes, each `{ events, account, time, call, recorded }`.
 * `known` holds `[first, last]` position ranges of writes the server recorded as it made them; those are
 * taken as they are (`recorded: true`), the rest read from the envelope by the rule above.
 */
export function groupWrites(events, known = []) {
  const recordedAt = new Map();
  if (events.length > 0) {
    const lo = events[0].position;
    const hi = events[events.length - 1].position;
    for (const range of known) {
      for (let p = Math.max(range[0], lo); p <= Math.min(range[1], hi); p++) recordedAt.set(p, range);
    }
  }
  const writes = [];
  let current = null;
  for (const e of events) {
    const owner = ownerOf(e.stream);
    const range = recordedAt.get(e.position);
    const joins =
      current !== null &&
      e.position === current.last + 1 &&
      (range !== undefined
        ? current.range === range
        : current.range === undefined &&
          e.time === current.time &&
          e.type !== 'CreditsCharged' &&
          !current.alone &&
          !alone(e) &&
          (owner === null || current.account === null || owner === current.account));
    if (!joins) {
      current = { events: [], account: owner, time: e.time, call: callOf(e), recorded: range !== undefined, last: e.position, alone: alone(e), range };
      writes.push(current);
    }
    current.events.push(e);
    current.last = e.position;
    if (current.account === null) current.account = owner;
  }
  return writes.map(({ last, alone, range, ...w }) => w);
}

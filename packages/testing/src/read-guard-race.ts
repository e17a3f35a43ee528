import { createEngine, type Engine } from '@sdp/core';
import { seededIds, WRITE_POLICIES, type EventStore, type StoredEvent } from '@sdp/core/kernel';

/** What `readGuardRace` found: every charge or subscription the log holds that a stale state decided. */
export interface ReadGuardRaceReport {
  /** Calls answered by engine A, by status. */
  statuses: Record<number, number>;
  /** Charges and subscriptions in the log (the race must have produced some of each). */
  charges: number;
  subscriptions: number;
  /** Changes the other side made while the calls ran. */
  changes: number;
  /** Each: what was written, where in the log, and which state it contradicts. */
  stale: string[];
}

const T = Date.parse('2026-04-01T12:00:00Z');
const S = Math.floor(T / 1000);
const USER = 'racer';
const KEY = 'racer-key-0000000000000000000001';

/**
 * Two engines on one store, each with its own cache, as two server processes would be. Engine A makes
 * calls that depend on streams engine B changes at the same time: the account's package and denial
 * (operator commands: they write no credit stream, so only a read guard can see them), an identity's
 * limit, and historics queries deleted while A subscribes a push to them. Then the log is read back in
 * order, and every charge and every subscription is checked against the states as they stood at its
 * position: a decision taken on a state another writer had already moved shows up as a contradiction.
 *
 * `store` is the one both engines share (empty), or two connections to one database (`a` and `b`, as two
 * processes hold). Each engine's appends are delayed by a few turns of the event loop, so the other's
 * writes land between a decision and its write.
 */
export async function readGuardRace(store: EventStore | { a: EventStore; b: EventStore }, options: { rounds?: number; seed?: number } = {}): Promise<ReadGuardRaceReport> {
  const rounds = options.rounds ?? 60;
  let draw = options.seed ?? 7;
  const random = (): number => {
    draw = (Math.imul(draw, 1103515245) + 12345) >>> 0;
    return draw / 2 ** 32;
  };
  const [storeA, storeB] = 'a' in store ? [store.a, store.b] : [store, store];
  const clock = { now: () => T };
  // As a server runs them: pauses between attempts on a timer (many attempts, so that every call ends
  // in a decision the log can be checked against rather than a 503).
  const wait = (ms: number) => new Promise<void>((go) => setTimeout(go, ms));
  // Two connections to a database are slow enough already; a store in this process gets delays.
  const [slowA, slowB] = 'a' in store ? [storeA, storeB] : [delayedAppends(storeA, random), delayedAppends(storeB, random)];
  // Two writers of one store, as two server processes are: neither trusts its cache, and each pipelines
  // an account's calls (every store here checks the last event id a pending decision expects).
  const a = createEngine({ store: slowA, clock, ids: seededIds(1), wait, settings: { maxAttempts: 1000 }, writePolicy: WRITE_POLICIES.shared });
  const b = createEngine({ store: slowB, clock, ids: seededIds(2), wait, settings: { maxAttempts: 1000 }, writePolicy: WRITE_POLICIES.shared });
  await a.openAccount({ username: USER, api_key: KEY, package: { credits_per_hour: 400 } });
  const as = (engine: Engine, key: string) => (endpoint: Parameters<Engine['call']>[0]['endpoint'], params: Record<string, unknown> = {}) =>
    engine.call({ version: '1.5', endpoint, credentials: { username: USER, apiKey: key }, params });
  const callB = as(b, KEY);
  const identity = (await callB('account.identity.create', { label: 'racing' })).body as { id: string; api_key: string };
  await callB('account.identity.limit.create', { identity_id: identity.id, service: 'facebook', total_allowance: 30 });
  const hash = ((await callB('core.compile', { csdl: 'fb.content contains "race"' })).body as { hash: string }).hash;
  const queries: string[] = [];
  for (let i = 0; i < 6; i++) {
    const q = await callB('historics.prepare', { hash, start: S - 7200, end: S - 600, sources: 'facebook', name: `q${i}` });
    queries.push((q.body as { id: string }).id);
  }
  const allQueries = [...queries];
  await b.changePackage(USER, { credits_per_hour: 100_000 });

  const callA = as(a, KEY);
  const callIdentity = as(a, identity.api_key);
  const statuses: Record<number, number> = {};
  const count = (answer: { status: number }) => (statuses[answer.status] = (statuses[answer.status] ?? 0) + 1);
  let changes = 0;
  for (let r = 0; r < rounds; r++) {
    // Each round, at the same time: A's calls all at once (each decided on A's cache while B's change is
    // on its way): charged calls on the account's key and the identity's, and a push on a query;
    const sideA = Promise.all([
      callA('core.validate', { csdl: 'fb.content contains "x"' }).then(count),
      callIdentity('core.validate', { csdl: 'fb.content contains "x"', service: 'facebook' }).then(count),
      callA('push.create', { name: `p${r}`, output_type: 'pull', output_params: { format: 'json_array' }, historics_id: allQueries[r % allQueries.length]! }).then(count),
    ]);
    // and, on B's side, a dearer charge of the same account (both write its credit stream, so a write of
    // A's decided on A's pending charge can meet B's write of the same version, and had it counted A's 5
    // credits where B spent 25, it could overrun the allowance) and one change.
    const chargeB = callB('insight.get', { id: '0'.repeat(32) });
    const change = r % 4;
    changes++;
    let sideB: Promise<unknown>;
    if (change === 0) sideB = b.changePackage(USER, { credits_per_hour: [100_000, 200, 100_000, 400][(r >> 2) % 4]! });
    else if (change === 1) sideB = r % 8 === 1 ? b.deny(USER, 'racing') : b.allow(USER);
    else if (change === 2) sideB = callB('account.identity.limit.update', { identity_id: identity.id, service: 'facebook', total_allowance: [1000, 40, 1000, 80][(r >> 2) % 4] });
    else if (r % 12 === 3 && queries.length > 1) sideB = callB('historics.delete', { id: queries.splice(Math.floor(random() * queries.length), 1)[0]! });
    else sideB = b.allow(USER);
    await Promise.all([sideA, sideB, chargeB]);
  }
  return { statuses, changes, ...(await checkLog(storeA)) };
}

/**
 * An append reaches the store a few turns of the event loop after it was asked for, still in the order
 * asked (as every store keeps it, and the account's pipelined lane relies on it).
 */
function delayedAppends(store: EventStore, random: () => number): EventStore {
  const later = (turns: number) => new Promise<void>((go) => (turns === 0 ? queueMicrotask(go) : setImmediate(() => later(turns - 1).then(go))));
  let queue: Promise<void> = Promise.resolve();
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'append') {
        return (batch: Parameters<EventStore['append']>[0]) => {
          const turn = queue.then(() => later(Math.floor(random() * 3)));
          queue = turn;
          return turn.then(() => target.append(batch));
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Reads the whole log in position order and checks it (`staleDecisions`) for the race's account. */
async function checkLog(store: EventStore): Promise<{ charges: number; subscriptions: number; stale: string[] }> {
  const events: StoredEvent[] = [];
  for (let batch = await store.readAll(0, 1000); batch.length > 0; batch = await store.readAll(batch[batch.length - 1]!.position, 1000)) events.push(...batch);
  return staleDecisions(events, USER);
}

/** An event of the log as `staleDecisions` reads it (a `StoredEvent`, or a line of `GET /_admin/events`). */
export type LoggedEvent = Pick<StoredEvent, 'position' | 'stream' | 'type' | 'data'>;

/**
 * Checks one account's decisions in a log, read in position order: keeping by hand (from the events' data,
 * independently of the deciders under test) the few facts the decisions depend on (the package's hourly
 * credits, a denial, identity limits, live historics queries), it names every charge or push subscription
 * that contradicts the state as it stood at its position: a decision taken on a state another writer had
 * already moved. Any log will do: a store's, or one a server exported, after a race run by any means.
 */
export function staleDecisions(events: readonly LoggedEvent[], username: string): { charges: number; subscriptions: number; stale: string[] } {
  const USER = username;
  let limit = 0;
  let denied = false;
  /** `{identity}:{service}` → total_allowance. */
  const identityLimits = new Map<string, number | null>();
  const liveQueries = new Set<string>();
  /** `{key}` → the window's start and what it used. */
  const windows = new Map<string, { start: number; used: number }>();
  const stale: string[] = [];
  let charges = 0;
  let subscriptions = 0;
  for (const e of events) {
    const at = `${e.type} at position ${e.position}`;
    const data = e.data as Record<string, unknown>;
    if (e.stream === `account:${USER}`) {
      if (e.type === 'AccountOpened' || e.type === 'PackageChanged') limit = (data['package'] as { credits_per_hour: number }).credits_per_hour;
      else if (e.type === 'AccountDenied') denied = true;
      else if (e.type === 'AccountAllowed') denied = false;
    } else if (e.stream === `identities:${USER}`) {
      const key = `${String(data['identityId'])}:${String(data['service'])}`;
      if (e.type === 'IdentityLimitCreated' || e.type === 'IdentityLimitUpdated') identityLimits.set(key, data['totalAllowance'] as number | null);
      else if (e.type === 'IdentityLimitDeleted') identityLimits.delete(key);
    } else if (e.stream === `historics:${USER}`) {
      if (e.type === 'HistoricsPrepared') liveQueries.add(String(data['id']));
      else if (e.type === 'HistoricsDeleted') liveQueries.delete(String(data['id']));
    } else if (e.stream === `credits:${USER}` && e.type === 'CreditsCharged') {
      charges++;
      if (denied) stale.push(`${at}: charged while the account was denied`);
      for (const { key, cost, start } of data['lines'] as { key: string; cost: number; start: number }[]) {
        const w = windows.get(key);
        const used = (w && w.start === start ? w.used : 0) + cost;
        windows.set(key, { start, used });
        const [kind, id, service] = key.split(':');
        const bound = key === 'general' ? limit : kind === 'identity' ? identityLimits.get(`${id}:${service}`) : undefined;
        if (typeof bound === 'number' && used > bound) stale.push(`${at}: ${key} used ${used} of a limit of ${bound} (decided on an older limit)`);
      }
    } else if (e.stream === `push:${USER}` && e.type === 'PushSubscriptionCreated') {
      subscriptions++;
      const source = String(data['hash']);
      if (!liveQueries.has(source)) stale.push(`${at}: a push on historics ${source}, which was deleted`);
    }
  }
  return { charges, subscriptions, stale };
}

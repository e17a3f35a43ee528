import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore, HostLiveness } from '@sdp/core/kernel';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A lapse long enough that a record renewed just before a look is never taken for lapsed on a busy machine. */
const LAPSE = 1_000;
const PAST_LAPSE = 1_100;

/**
 * What a store that several processes share must do with its liveness records (`StoreCapabilities.hostRecords`):
 * a host renewing is alive, one silent for the lapse is found with the last time it was alive and the
 * accounts it held, another handle on the same data (another process) sees the same records, and none of
 * it is an event. Lapse is judged by the store's time: the test waits real milliseconds.
 */
export function hostLivenessContract(name: string, open: () => Promise<EventStore>, opensAgain: (store: EventStore) => Promise<EventStore>): void {
  describe(`${name}: host liveness`, () => {
    const opened: EventStore[] = [];
    const fresh = async () => {
      const store = await open();
      opened.push(store);
      return { store, live: store.capabilities.hostRecords as HostLiveness };
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it('a renewed host is alive; silent past the lapse it is found, with its own last time alive and the accounts it held', async () => {
      const { store, live } = await fresh();
      expect(live).toBeDefined();
      await live.renew('h1', 1_000);
      await live.hold('h1', 'ada');
      await live.hold('h1', 'bob');
      await live.hold('h1', 'ada');
      await live.renew('h2', 2_000);
      expect(await live.lapsed(60_000, 10)).toEqual([]);
      await sleep(PAST_LAPSE);
      await live.renew('h2', 3_000);
      expect(await live.lapsed(LAPSE, 10)).toEqual([{ host: 'h1', aliveAt: 1_000, accounts: ['ada', 'bob'] }]);
      expect(await live.lapsed(LAPSE, 1)).toEqual([{ host: 'h1', aliveAt: 1_000, accounts: ['ada'] }]);
      // Renewals and holdings are not events.
      expect(await store.head()).toBe(0);
    });

    it('lapsedAmong: alive hosts left out, lapsed ones with their time, hosts without a record as unknown', async () => {
      const { live } = await fresh();
      await live.renew('gone', 500);
      await sleep(PAST_LAPSE);
      await live.renew('alive', 900);
      const among = await live.lapsedAmong(['alive', 'gone', 'never', 'gone'], LAPSE);
      expect([...among.entries()].sort()).toEqual([['gone', 500], ['never', undefined]]);
    });

    it('released drops one holding, forget the whole host; another handle on the same data sees the same records', async () => {
      const { store, live } = await fresh();
      await live.renew('h1', 1);
      await live.hold('h1', 'ada');
      await live.hold('h1', 'bob');
      await sleep(PAST_LAPSE);
      const other = await opensAgain(store);
      opened.push(other);
      expect(await other.capabilities.hostRecords!.lapsed(LAPSE, 10)).toEqual([{ host: 'h1', aliveAt: 1, accounts: ['ada', 'bob'] }]);
      await other.capabilities.hostRecords!.released('h1', 'ada');
      expect(await live.lapsed(LAPSE, 10)).toEqual([{ host: 'h1', aliveAt: 1, accounts: ['bob'] }]);
      await other.capabilities.hostRecords!.forget('h1');
      expect(await live.lapsed(0, 10)).toEqual([]);
      expect([...(await live.lapsedAmong(['h1'], LAPSE)).entries()]).toEqual([['h1', undefined]]);
    });

    it('a host known dead lapses at once, keeping its last time alive', async () => {
      const { live } = await fresh();
      await live.renew('h1', 7);
      await live.hold('h1', 'ada');
      await live.renew('h2', 8);
      await live.expire('h1');
      await live.expire('never');
      expect(await live.lapsed(60_000, 10)).toEqual([{ host: 'h1', aliveAt: 7, accounts: ['ada'] }]);
    });

    it('the operator reset empties them with the log', async () => {
      const { store, live } = await fresh();
      await live.renew('h1', 1);
      await live.hold('h1', 'ada');
      await store.clear();
      await sleep(20);
      expect(await live.lapsed(0, 10)).toEqual([]);
    });
  });
}

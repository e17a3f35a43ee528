import { describe, expect, it } from 'vitest';
import { given } from '../../test/given-log.ts';
import { accountStream, type AccountEvent } from '../accounting/account.ts';
import { creditsStream, type CreditsEvent } from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { AccountDirectory, RECENT_CHARGES_KEPT } from './account-directory.ts';

const opened = (username: string): AccountEvent => ({ type: 'AccountOpened', data: { username, salt: 's', keyHash: 'h', package: DEFAULT_PACKAGE, at: 0 } });
const charged = (endpoint: string, lines: { key: string; cost: number }[]): CreditsEvent => ({
  type: 'CreditsCharged',
  data: { at: 0, endpoint, lines: lines.map((l) => ({ ...l, start: 0 })) },
});

describe('the account directory (read model)', () => {
  it('given accounts opened and charged, lists them in the order opened, each with its charges newest first', async () => {
    const store = new MemoryEventStore();
    await given(store, accountStream('b-first'), 10, opened('b-first'));
    await given(store, accountStream('a-second'), 20, opened('a-second'));
    await given(store, creditsStream('a-second'), 30, charged('core.validate', [{ key: 'general', cost: 5 }]));
    await given(store, creditsStream('a-second'), 40, charged('insight.analyze', [{ key: 'identity:x', cost: 25 }, { key: 'analyze', cost: 25 }]));
    const directory = new AccountDirectory(store);

    expect(await directory.usernames()).toEqual(['b-first', 'a-second']);
    expect(directory.recentCharges('b-first')).toEqual([]);
    expect(directory.recentCharges('a-second')).toEqual([
      { position: 4, time: 40, endpoint: 'insight.analyze', allowance: 'analyze', cost: 25 },
      { position: 3, time: 30, endpoint: 'core.validate', allowance: 'general', cost: 5 },
    ]);
    expect(directory.head).toBe(4);
  });

  it(`keeps only the newest ${RECENT_CHARGES_KEPT} charges of an account, and none of an account it never saw opened`, async () => {
    const store = new MemoryEventStore();
    await given(store, accountStream('busy'), 1, opened('busy'));
    for (let n = 0; n < RECENT_CHARGES_KEPT + 3; n++) await given(store, creditsStream('busy'), 2 + n, charged(`call-${n}`, [{ key: 'general', cost: n }]));
    await given(store, creditsStream('stranger'), 99, charged('core.validate', [{ key: 'general', cost: 5 }]));
    const directory = new AccountDirectory(store);
    await directory.catchUp();
    expect(directory.recentCharges('busy').map((c) => c.cost)).toEqual([10, 9, 8, 7, 6, 5, 4, 3]);
    expect(directory.recentCharges('stranger')).toEqual([]);
    expect(await directory.usernames()).toEqual(['busy']);
  });

  it('reads only what is new at each look, and starts over when the log was reset under it', async () => {
    const store = new MemoryEventStore();
    await given(store, accountStream('before'), 1, opened('before'));
    const directory = new AccountDirectory(store);
    expect(await directory.usernames()).toEqual(['before']);
    await given(store, accountStream('later'), 2, opened('later'));
    expect(await directory.usernames()).toEqual(['before', 'later']);

    await store.clear();
    await given(store, accountStream('after-reset'), 3, opened('after-reset'));
    await given(store, accountStream('and-another'), 4, opened('and-another'));
    expect(await directory.usernames()).toEqual(['after-reset', 'and-another']);
  });
});

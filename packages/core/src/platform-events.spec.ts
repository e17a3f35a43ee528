import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from './kernel/memory-store.ts';
import { fixedClock, seededIds } from './kernel/ports.ts';
import { createEngine } from './platform.ts';
import { platformUpcasters } from './platform-events.ts';

const T = Date.parse('2026-03-02T09:00:00Z');

describe('the platform read through its event schema', () => {
  it('folds a hand-written older event through a chain of steps, and writes new ones in the current version', async () => {
    const store = new MemoryEventStore();
    const engine0 = createEngine({ store, clock: fixedClock(T), ids: seededIds(1) });
    await engine0.openAccount({ username: 'ada', api_key: 'ada-key-000000001' });
    // AccountDenied as two older builds wrote it: v1 {why}, v2 {reason_text}; the current shape is {reason}.
    await store.append([{ stream: 'account:ada', expectedVersion: 1, events: [{ id: 'old', type: 'AccountDenied', data: { why: 'spam' }, time: T, schemaVersion: 1 }] }]);
    const upcasters = platformUpcasters()
      .register('AccountDenied', 1, (d: { why: string }) => ({ reason_text: d.why }))
      .register('AccountDenied', 2, (d: { reason_text: string }) => ({ reason: d.reason_text }));
    const engine = createEngine({ store, clock: fixedClock(T), ids: seededIds(2), upcasters });
    expect(await engine.accountView('ada')).toMatchObject({ denied: true, denied_reason: 'spam' });
    const refused = await engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username: 'ada', apiKey: 'ada-key-000000001' } });
    expect(refused.status).toBe(403);
    await engine.allow('ada');
    await engine.deny('ada', 'again');
    expect((await store.readStream('account:ada')).map((e) => [e.type, e.schemaVersion, e.data])).toEqual([
      ['AccountOpened', 1, expect.anything()],
      ['AccountDenied', 1, { why: 'spam' }],
      ['AccountAllowed', 1, {}],
      ['AccountDenied', 3, { reason: 'again' }],
    ]);
    expect((await createEngine({ store, clock: fixedClock(T), ids: seededIds(3), upcasters }).accountView('ada')).denied_reason).toBe('again');
  });
});

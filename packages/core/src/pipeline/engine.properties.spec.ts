import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Engine } from './engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { checkNewAccountFields } from '../accounting/account.ts';
import { BadRequest } from '../calls/errors.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');

async function engineWith(accounts: { username: string; limit: number }[]) {
  const time = { now: T0 };
  const engine = new Engine({
    store: new MemoryEventStore(),
    clock: { now: () => time.now },
    ids: seededIds(3),
    handlers: { 'core.validate': () => ({ body: {} }), 'core.balance': () => ({ body: {} }), 'push.pause': () => ({ body: {} }) },
  });
  for (const a of accounts) await engine.openAccount({ username: a.username, api_key: `key-of-${a.username}`, package: { credits_per_hour: a.limit } });
  return { engine, time };
}

const ENDPOINTS = ['core.validate', 'core.balance', 'push.pause'] as const; // costs 5, 25, 1
const versionArb = fc.constantFrom(...VERSIONS.map((v) => v.id));

describe('engine invariants', () => {
  test.prop([versionArb, fc.constantFrom(...ENDPOINTS), fc.integer({ min: 0, max: 24 })])(
    'the 403/429 choice of a rate-limit refusal depends only on the version',
    async (version: VersionId, endpoint, limit) => {
      const { engine } = await engineWith([{ username: 'u', limit }]);
      // Spend down below any cost, then call once more.
      for (let i = 0; i < 30; i++) await engine.call({ version: '1.5', endpoint: 'push.pause', credentials: { username: 'u', apiKey: 'key-of-u' } });
      const a = await engine.call({ version, endpoint, credentials: { username: 'u', apiKey: 'key-of-u' } });
      const cost = { 'core.validate': 5, 'core.balance': 25, 'push.pause': 1 }[endpoint];
      if (cost > 0) {
        expect(a.status).toBe(atLeast(version, '1.2') ? 429 : 403);
        expect(a.rate!.cost).toBeGreaterThan(a.rate!.remaining);
      }
    },
  );

  test.prop([
    fc.array(
      fc.record({ who: fc.integer({ min: 0, max: 3 }), endpoint: fc.constantFrom(...ENDPOINTS), gap: fc.integer({ min: 0, max: 10 * 60_000 }) }),
      { maxLength: 80 },
    ),
  ])('interleaved calls from many accounts never move another account\'s figures', async (seq) => {
    const names = ['a', 'b', 'c', 'd'];
    const { engine, time } = await engineWith(names.map((username) => ({ username, limit: 60 })));
    for (const step of seq) {
      time.now += step.gap;
      const others = await Promise.all(names.filter((_, i) => i !== step.who).map((n) => engine.accountView(n)));
      const answer = await engine.call({ version: '1.5', endpoint: step.endpoint, credentials: { username: names[step.who]!, apiKey: `key-of-${names[step.who]}` } });
      expect([200, 429]).toContain(answer.status);
      const after = await Promise.all(names.filter((_, i) => i !== step.who).map((n) => engine.accountView(n)));
      expect(after).toEqual(others);
    }
  });

  test.prop([fc.array(fc.constantFrom(...ENDPOINTS), { maxLength: 60 }), fc.integer({ min: 0, max: 100 })])(
    'concurrent calls on one account never admit more than the allowance',
    async (endpoints, limit) => {
      const { engine } = await engineWith([{ username: 'u', limit }]);
      const answers = await Promise.all(endpoints.map((endpoint) => engine.call({ version: '1.5', endpoint, credentials: { username: 'u', apiKey: 'key-of-u' } })));
      const cost = { 'core.validate': 5, 'core.balance': 25, 'push.pause': 1 };
      const admitted = endpoints.filter((_, i) => answers[i]!.status === 200).reduce((s, e) => s + cost[e], 0);
      expect(admitted).toBeLessThanOrEqual(limit);
      expect((await engine.accountView('u')).allowances.general.remaining).toBe(limit - admitted);
    },
  );
});

describe('opening accounts', () => {
  const username = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.@-]{1,64}$/), fc.string({ maxLength: 70 }));
  const apiKey = fc.option(fc.oneof(fc.stringMatching(/^[!-~]{8,128}$/), fc.string({ maxLength: 140 })), { nil: undefined });
  const pkg = fc.option(
    fc.record({ credits_per_hour: fc.oneof(fc.integer({ min: -5, max: 1e6 }), fc.constant('many')), task_slots: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(1.5)) }, { requiredKeys: [] }),
    { nil: undefined },
  );
  test.prop([username, apiKey, pkg], { numRuns: 150 })(
    'checkNewAccountFields refuses exactly what opening the account refuses, with the same message',
    async (name, key, fields) => {
      const input = { username: name, ...(key !== undefined ? { api_key: key } : {}), package: fields };
      let checked: string | undefined;
      try {
        checkNewAccountFields(input);
      } catch (error) {
        expect(error).toBeInstanceOf(BadRequest);
        checked = (error as Error).message;
      }
      const { engine } = await engineWith([]);
      let opened: string | undefined;
      try {
        await engine.openAccount(input);
      } catch (error) {
        expect(error).toBeInstanceOf(BadRequest);
        opened = (error as Error).message;
      }
      expect(checked).toBe(opened);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { StoredEvent } from '../kernel/events.ts';
import type { ApiCall, CallAnswer } from '../handling/handler.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { streamHandlers } from './stream-handlers.ts';
import { StreamCalls } from './stream-calls.ts';

const T0 = Date.parse('2026-03-01T12:00:30Z');
const RESET = Date.parse('2026-03-01T13:00:00Z') / 1000;
const KEY = 'alice-key-01';
const ALICE = { username: 'alice', apiKey: KEY };

/**
 * The operator's charge of stream usage (`stream.charge`) judged by `CallJudge`: given what the operator
 * set up, when a call is made, then its answer and the events it wrote.
 */
async function given(setup: (engine: Engine) => Promise<unknown> = async () => undefined, pkg: Record<string, unknown> = { credits_per_hour: 100 }) {
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => T0 }, ids: seededIds(5), handlers: { ...filterHandlers, ...streamHandlers } });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: pkg });
  await setup(engine);
  const calls = new StreamCalls(engine);
  const written = async (run: () => Promise<CallAnswer>): Promise<{ answer: CallAnswer; events: StoredEvent[] }> => {
    const head = await store.head();
    const answer = await run();
    return { answer, events: await store.readAll(head) };
  };
  return {
    engine,
    store,
    whenCharged: (cost: number, username = 'alice') => written(() => calls.charge(username, cost)),
    whenCalled: (call: Omit<ApiCall, 'version'>) => written(() => engine.call({ version: '1.5', ...call })),
  };
}

const charge = (username: string, cost: number) => (engine: Engine) => new StreamCalls(engine).charge(username, cost);

describe("the operator's stream charge, a call judged where every charge is", () => {
  it('given an account, when the operator charges 60, then 200 with the allowance after it and one charge of the general allowance', async () => {
    const { answer, events } = await (await given()).whenCharged(60);
    expect(answer).toMatchObject({ status: 200, body: { product: 'stream', cost: 60 }, rate: { limit: 100, remaining: 40, cost: 60, reset: RESET } });
    expect(events.map((e) => [e.stream, e.type, e.data])).toEqual([
      ['credits:alice', 'CreditsCharged', { at: T0, endpoint: 'stream.charge', lines: [{ key: 'general', cost: 60, start: Date.parse('2026-03-01T12:00:00Z') }] }],
    ]);
  });

  it('given 60 of 100 spent, when the operator charges 41, then 429 with the figures before it, and nothing written', async () => {
    const { answer, events } = await (await given(charge('alice', 60))).whenCharged(41);
    expect(answer).toMatchObject({ status: 429, rate: { limit: 100, remaining: 40, cost: 41, reset: RESET } });
    expect((answer.body as { error: string }).error).toMatch(/^rate limit exceeded: this call costs 41 credits and 40 remain/);
    expect(events).toEqual([]);
  });

  it('given 60 spent, when the operator charges the 40 left, then 200 with 0 remaining', async () => {
    const { answer } = await (await given(charge('alice', 60))).whenCharged(40);
    expect(answer).toMatchObject({ status: 200, rate: { remaining: 0, cost: 40 } });
  });

  it('given no window open, a charge of 0 opens one (a cost-0 event); given one open, it writes nothing', async () => {
    const fresh = await (await given()).whenCharged(0);
    expect(fresh.answer).toMatchObject({ status: 200, rate: { remaining: 100, cost: 0 } });
    expect(fresh.events.map((e) => e.data)).toEqual([{ at: T0, endpoint: 'stream.charge', lines: [{ key: 'general', cost: 0, start: Date.parse('2026-03-01T12:00:00Z') }] }]);
    const open = await (await given(charge('alice', 5))).whenCharged(0);
    expect(open.answer).toMatchObject({ status: 200, rate: { remaining: 95, cost: 0 } });
    expect(open.events).toEqual([]);
  });

  it('given a denied account, when the operator charges it, then it is charged (the operator denied it; a tenant\'s call is refused 403)', async () => {
    const t = await given((engine) => engine.deny('alice', 'spam'));
    expect((await t.whenCalled({ endpoint: 'core.validate', credentials: ALICE, params: { csdl: 'fb.content contains "x"' } })).answer.status).toBe(403);
    const { answer, events } = await t.whenCharged(30);
    expect(answer).toMatchObject({ status: 200, rate: { remaining: 70 } });
    expect(events).toHaveLength(1);
  });

  it('when the account does not exist, or the name could be none, then 404 and nothing written', async () => {
    const t = await given();
    for (const name of ['nobody', 'bad name!', '']) {
      const { answer, events } = await t.whenCharged(1, name);
      expect(answer.status).toBe(404);
      expect((answer.body as { error: string }).error).toMatch(/^No account named /);
      expect(events).toEqual([]);
    }
  });

  it('when the stated cost is not a whole number of credits, 0 or more, then 400 naming it, and nothing written', async () => {
    const t = await given();
    for (const params of [{ cost: -1 }, { cost: 1.5 }, { cost: 'ten' }, {}]) {
      const { answer, events } = await t.whenCalled({ endpoint: 'stream.charge', operator: { username: 'alice' }, params });
      expect(answer.status).toBe(400);
      expect((answer.body as { error: string }).error).toMatch(/cost/);
      expect(events).toEqual([]);
    }
  });

  it("when a tenant makes the call with the account's own key (no operator), then 401 and nothing written: only the operator charges by hand", async () => {
    const t = await given();
    for (const call of [{ credentials: ALICE }, { connection: { username: 'alice' } }, {}]) {
      const { answer, events } = await t.whenCalled({ endpoint: 'stream.charge', params: { cost: 1 }, ...call });
      expect(answer.status).toBe(401);
      expect(events).toEqual([]);
    }
  });

  test.prop([fc.array(fc.oneof(fc.integer({ min: 0, max: 40 }).map((cost) => ({ cost })), fc.constant('call' as const)), { minLength: 1, maxLength: 30 })], { numRuns: 40 })(
    'no over-admission: charges and calls of one account made at once never spend more than the allowance, and each answer says what the log holds',
    async (plan) => {
      const t = await given(undefined, { credits_per_hour: 100 });
      const calls = new StreamCalls(t.engine);
      const compile = { version: '1.5' as const, endpoint: 'core.validate' as const, credentials: ALICE, params: { csdl: 'fb.content contains "x"' } };
      const answers = await Promise.all(plan.map((p) => (p === 'call' ? t.engine.call(compile) : calls.charge('alice', p.cost))));
      const log = await t.store.readStream('credits:alice');
      const spent = log.reduce((n, e) => n + (e.data as { lines: { cost: number }[] }).lines.reduce((m, l) => m + l.cost, 0), 0);
      expect(spent).toBeLessThanOrEqual(100);
      // Each account's calls take its lane in turn: the answers, in order, account for every credit spent.
      const accepted = answers.filter((a) => a.status === 200);
      expect(accepted.reduce((n, a) => n + a.rate!.cost, 0)).toBe(spent);
      expect(Math.min(...answers.map((a) => a.rate!.remaining))).toBe(100 - spent);
      for (const refused of answers.filter((a) => a.status !== 200)) {
        expect(refused.status).toBe(429);
        expect(refused.rate!.remaining).toBeLessThan(refused.rate!.cost);
      }
    },
  );
});

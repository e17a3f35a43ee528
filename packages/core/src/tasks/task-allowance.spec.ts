import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { createEngine } from '../platform.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import { TASK_QUEUE_LIMIT } from './task-slot.ts';

const T0 = Date.parse('2026-04-01T12:00:00Z');
const creds = { username: 'alice', apiKey: 'alice-key-0001' };
const REC = 'e'.repeat(40);
const task = {
  service: 'linkedin',
  subscription_id: REC,
  name: 't',
  parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.metro_area', threshold: 5 } } },
};

async function setup(pkg: Record<string, unknown> = {}) {
  const time = { now: T0 };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(4) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: pkg });
  await engine.command((uow) =>
    uow.execute(recordingsDecider, recordingsStream('alice'), {
      type: 'StartRecording',
      id: REC,
      hash: 'd'.repeat(32),
      name: 'r',
      service: 'linkedin',
      at: uow.now,
      identityId: null,
      concurrentLimit: 10,
      holdLimit: 1000,
    }),
  );
  return { engine, time };
}

test.prop([fc.array(fc.oneof(fc.constant('task' as const), fc.constant('general' as const), fc.integer({ min: 1, max: 120_000 })), { maxLength: 30 })], {
  numRuns: 25,
})("task creation leaves the account's allowance untouched: it reports cost 5 and the Remaining of the general allowance", async (steps) => {
  const { engine, time } = await setup();
  let general = 0;
  for (const step of steps) {
    if (typeof step === 'number') {
      time.now += step;
      continue;
    }
    if (step === 'general') {
      expect((await engine.call({ version: '1.5', endpoint: 'account.identity.list', credentials: creds })).status).toBe(200);
      general += 1;
      continue;
    }
    const a = await engine.call({ version: '1.5', endpoint: 'tasks.create', credentials: creds, params: task, mediaType: 'application/json' });
    expect(a.status).toBe(202);
    expect(a.rate).toMatchObject({ cost: 5, remaining: 10_000 - 5 * general });
  }
  // All steps fall in one window (at most 30 × 2 minutes), so what was spent is the general calls alone.
  const view = await engine.accountView('alice');
  if (general > 0) expect(view.allowances.general.remaining).toBe(10_000 - 5 * general);
  else expect(view.allowances.general.remaining).toBe(10_000);
});

describe('a full task queue', () => {
  it('refuses the 1,001st task like a rate limit (429 from 1.2, 403 before) and queues nothing', async () => {
    const { engine, time } = await setup();
    const create = (version: '1.1' | '1.5') => engine.call({ version, endpoint: 'tasks.create', credentials: creds, params: task, mediaType: 'application/json' });
    let last;
    for (let k = 0; k < TASK_QUEUE_LIMIT; k++) {
      last = await create('1.5');
      expect(last.status, JSON.stringify(last.body)).toBe(202);
    }
    expect(last!.headers!['X-Analysis-Tasks-Queued']).toBe('1000');
    const refused = await create('1.5');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: expect.stringMatching(/queue is full/) });
    expect((await create('1.1')).status).toBe(403);
    const list = await engine.call({ version: '1.5', endpoint: 'tasks.list', credentials: creds, params: { service: 'linkedin', per_page: 1 } });
    expect(list.body).toMatchObject({ count: TASK_QUEUE_LIMIT });
    // One task later, one slot is free again.
    time.now += 22_500;
    expect((await create('1.5')).headers!['X-Analysis-Tasks-Queued']).toBe('1000');
  });
});

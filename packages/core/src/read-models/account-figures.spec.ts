import { describe, expect, it } from 'vitest';
import { given } from '../../test/given-log.ts';
import { accountStream, type AccountEvent } from '../accounting/account.ts';
import { creditsStream, type CreditsEvent } from '../accounting/credit-window.ts';
import { completePackage } from '../accounting/package.ts';
import { NotFound } from '../calls/errors.ts';
import { limitingDayOf } from '../days/limiting-day.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { fixedClock, seededIds } from '../kernel/ports.ts';
import { Engine } from '../pipeline/engine.ts';
import { capacityStream, dailyAccountLimit, type CapacityEvent } from '../recording-index/capacity.ts';
import { tasksStream, type TaskEvent } from '../tasks/task-slot.ts';
import { FINISHES_SHOWN, accountFigures, taskQueues } from './account-figures.ts';

const NOW = Date.parse('2026-03-02T18:00:00Z');
const DAY = limitingDayOf(NOW, 'pst');
const PACKAGE = completePackage({ credits_per_hour: 100, task_slots: 2, index_capacity_per_month: 3_000_000 });

const opened = (username: string): AccountEvent => ({ type: 'AccountOpened', data: { username, salt: 's', keyHash: 'h', package: PACKAGE, at: 0 } });
const queued = (id: string, slot: number, finishAt: number): TaskEvent => ({
  type: 'TaskQueued',
  data: { id, service: 'facebook', type: 'analysis', name: id, subscriptionId: 'r', parameters: {}, identityId: null, slot, finishAt, at: NOW - 60_000 },
});

async function engineOver(store: MemoryEventStore): Promise<Engine> {
  return new Engine({ store, clock: fixedClock(NOW), ids: seededIds(1), settings: { limitingDay: 'pst' } });
}

describe("an account's figures (read model)", () => {
  it('given a charge, queued tasks and recorded interactions, shows the allowances, each slot and the day', async () => {
    const store = new MemoryEventStore();
    await given(store, accountStream('ada'), NOW - 3_600_000, opened('ada'));
    const charge: CreditsEvent = { type: 'CreditsCharged', data: { at: NOW - 60_000, endpoint: 'core.validate', lines: [{ key: 'general', cost: 30, start: NOW - 60_000 }] } };
    await given(store, creditsStream('ada'), NOW - 60_000, charge);
    await given(store, tasksStream('ada'), NOW - 60_000, queued('done', 1, NOW - 1), queued('t1', 1, NOW + 10_000), queued('t2', 1, NOW + 20_000));
    const recorded: CapacityEvent = { type: 'InteractionsRecorded', data: { day: DAY.key, items: [], kept: { r: 7 }, refused: {} } };
    await given(store, capacityStream('ada', DAY.key), NOW - 30_000, recorded);

    const figures = await accountFigures(await engineOver(store), 'ada');
    expect(figures).toMatchObject({ username: 'ada', denied: false, allowances: { general: { limit: 100, remaining: 70 } } });
    expect(figures.task_queues).toEqual([
      { slot: 0, queued: 0, finishes: [] },
      { slot: 1, queued: 2, finishes: [NOW + 10_000, NOW + 20_000] },
    ]);
    expect(figures.capacity_today).toEqual({ day: DAY.key, used: 7, limit: dailyAccountLimit(3_000_000), ends: DAY.end });
  });

  it('reads the slots at the instant asked: what finished by then is no longer queued', async () => {
    const store = new MemoryEventStore();
    await given(store, tasksStream('ada'), NOW, queued('t1', 0, NOW + 10_000), queued('t2', 0, NOW + 20_000));
    const engine = await engineOver(store);
    expect((await taskQueues(engine, 'ada', NOW + 15_000, 2)).map((q) => q.queued)).toEqual([1, 0]);
    expect((await taskQueues(engine, 'ada', NOW + 20_000, 2)).map((q) => q.queued)).toEqual([0, 0]);
  });

  it(`shows a slot beyond the package's while it holds tasks, and at most ${FINISHES_SHOWN} finishing times a slot`, async () => {
    const store = new MemoryEventStore();
    const many = Array.from({ length: FINISHES_SHOWN + 5 }, (_, n) => queued(`t${n}`, 2, NOW + (n + 1) * 1_000));
    await given(store, tasksStream('ada'), NOW, ...many);
    const queues = await taskQueues(await engineOver(store), 'ada', NOW, 1);
    expect(queues.map((q) => q.queued)).toEqual([0, 0, FINISHES_SHOWN + 5]);
    expect(queues[2]!.finishes).toEqual(many.slice(0, FINISHES_SHOWN).map((_, n) => NOW + (n + 1) * 1_000));
    // Once its tasks are done, the slot the package no longer has is no longer shown.
    expect(await taskQueues(await engineOver(store), 'ada', NOW + 60_000, 1)).toEqual([{ slot: 0, queued: 0, finishes: [] }]);
  });

  it('sees what was written after the engine cached a state: it reads each stream to its tail', async () => {
    const store = new MemoryEventStore();
    await given(store, accountStream('ada'), NOW, opened('ada'));
    const engine = await engineOver(store);
    expect((await accountFigures(engine, 'ada')).task_queues[0]!.queued).toBe(0);
    await given(store, tasksStream('ada'), NOW, queued('t1', 0, NOW + 10_000));
    expect((await accountFigures(engine, 'ada')).task_queues[0]!.queued).toBe(1);
  });

  it('answers NotFound for an account never opened', async () => {
    await expect(accountFigures(await engineOver(new MemoryEventStore()), 'nobody')).rejects.toBeInstanceOf(NotFound);
  });
});

import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ManualClock } from './manual-clock.ts';
import { randomIds } from './random-ids.ts';

describe('ManualClock', () => {
  it('moves only forward', async () => {
    const c = new ManualClock(1000);
    await c.advance(500);
    expect(c.now()).toBe(1500);
    await expect(c.advanceTo(1000)).rejects.toThrow(/backwards/);
    await expect(c.advance(-1)).rejects.toThrow(/backwards/);
    expect(c.now()).toBe(1500);
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 50 }), fc.integer({ min: 0, max: 12_000 })])(
    'runs due work in time order, each at its own time, and nothing after the target',
    async (times, target) => {
      const c = new ManualClock(0);
      const ran: { at: number; seen: number; i: number }[] = [];
      times.forEach((t, i) => c.at(t, (at) => void ran.push({ at: t, seen: at === c.now() ? at : -1, i })));
      await c.advanceTo(target);
      const expected = times.map((t, i) => ({ at: t, seen: t, i })).filter((x) => x.at <= target);
      expected.sort((a, b) => a.at - b.at || a.i - b.i);
      expect(ran).toEqual(expected);
      expect(c.now()).toBe(target);
    },
  );

  it('runs work that schedules more work on the way', async () => {
    const c = new ManualClock(0);
    const seen: number[] = [];
    const every = (at: number) => {
      seen.push(at);
      if (at < 100) c.at(at + 25, every);
    };
    c.at(0, every);
    await c.advanceTo(80);
    expect(seen).toEqual([0, 25, 50, 75]);
  });

  it('waits for work that answers a promise before the next piece, and follows work done at once at once', async () => {
    const c = new ManualClock(0);
    const order: string[] = [];
    c.at(10, () => {
      order.push('a');
      queueMicrotask(() => order.push('a microtask of a'));
    });
    c.at(20, () => {
      order.push('b');
    });
    c.at(30, async () => {
      await Promise.resolve();
      order.push('c, after its wait');
    });
    c.at(40, () => {
      order.push('d');
    });
    await c.advanceTo(50);
    // b follows a in the same stretch (no turn of the microtask queue between them); d waits for c.
    expect(order).toEqual(['a', 'b', 'a microtask of a', 'c, after its wait', 'd']);
  });

  it('gives the event loop a turn between pieces of work, so others are served during a long move', async () => {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const c = new ManualClock(0, { yieldTurn: turn });
    const order: string[] = [];
    for (const t of [10, 20, 30]) c.at(t, () => void order.push(`work at ${t}`));
    setImmediate(() => order.push('a call'));
    await c.advanceTo(100);
    expect(order).toEqual(['work at 10', 'a call', 'work at 20', 'work at 30']);
  });

  it('runs moves asked for together one after the other, each from where the last one left the clock', async () => {
    const c = new ManualClock(0, { yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)) });
    const seen: number[] = [];
    for (const t of [50, 150]) c.at(t, (at) => void seen.push(at));
    const moves = await Promise.all([c.advance(100), c.advance(100)]);
    expect(moves).toEqual([100, 200]);
    expect(seen).toEqual([50, 150]);
    expect(c.now()).toBe(200);
  });
});

describe('randomIds', () => {
  it('makes lowercase hex ids of the asked length', () => {
    const ids = randomIds();
    for (const n of [20, 32, 40]) expect(ids.hex(n)).toMatch(new RegExp(`^[0-9a-f]{${n}}$`));
    expect(ids.hex(32)).not.toBe(ids.hex(32));
  });
});

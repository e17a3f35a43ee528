import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { AccountLanes } from './account-lanes.ts';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('AccountLanes', () => {
  test.prop([fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 30 })])(
    'never runs two calls of one account at once, and runs them in arrival order',
    async (keys) => {
      const lanes = new AccountLanes();
      const running = new Map<string, number>();
      const order = new Map<string, number[]>();
      let overlap = false;
      await Promise.all(
        keys.map((key, i) =>
          lanes.run(key, async () => {
            running.set(key, (running.get(key) ?? 0) + 1);
            if (running.get(key)! > 1) overlap = true;
            await tick();
            order.set(key, [...(order.get(key) ?? []), i]);
            running.set(key, running.get(key)! - 1);
            if (i % 3 === 0) throw new Error('a failing call does not block the next');
          }).catch(() => undefined),
        ),
      );
      expect(overlap).toBe(false);
      for (const [key, seen] of order) expect(seen).toEqual(keys.flatMap((k, i) => (k === key ? [i] : [])));
      await tick();
      expect(lanes.busy).toBe(0);
    },
  );
  it('lets different accounts run side by side', async () => {
    const lanes = new AccountLanes();
    let both = false;
    let inA = false;
    const a = lanes.run('a', async () => {
      inA = true;
      await tick();
      await tick();
      inA = false;
    });
    const b = lanes.run('b', async () => {
      await tick();
      both = inA;
    });
    await Promise.all([a, b]);
    expect(both).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { PROTOTYPE_NAMES, prototypeKeyParam } from './input-limits.ts';

const positions = ['id', 'ids', 'hash', 'service', 'subscription_id', 'order_by', 'type'] as const;
const names = [...PROTOTYPE_NAMES];

describe('prototypeKeyParam', () => {
  it('names a key-position parameter holding a prototype name, alone, in a list or in an array', () => {
    expect(prototypeKeyParam({ id: 'constructor' })).toEqual({ name: 'id', value: 'constructor' });
    expect(prototypeKeyParam({ ids: 'a1,__proto__,b2' })).toEqual({ name: 'ids', value: '__proto__' });
    expect(prototypeKeyParam({ ids: '["a1","toString"]' })).toEqual({ name: 'ids', value: 'toString' });
    expect(prototypeKeyParam({ resource_ids: ['x', 'valueOf'] })).toEqual({ name: 'resource_ids', value: 'valueOf' });
  });

  it('leaves other parameters and ordinary values alone', () => {
    expect(prototypeKeyParam({})).toBeUndefined();
    expect(prototypeKeyParam({ csdl: 'constructor', name: '__proto__' })).toBeUndefined();
    expect(prototypeKeyParam({ id: 'abc', hash: 'e4941fffc2d4' })).toBeUndefined();
  });

  // The invariant: when several parameters are refused, the one named is the first key position in the
  // catalogue's order, whatever order the caller sent them in.
  test.prop([
    fc.uniqueArray(fc.constantFrom(...positions), { minLength: 1 }),
    fc.array(fc.constantFrom(...names, 'plain', 'a,b'), { minLength: positions.length, maxLength: positions.length }),
  ])('names the first refused key position in a fixed order, whatever order the parameters came in', (sent, values) => {
    const params = Object.fromEntries(sent.map((name, i) => [name, values[i]!]));
    const reversed = Object.fromEntries(Object.entries(params).reverse());
    const expected = ['id', 'ids', 'hash', 'service', 'subscription_id', 'type', 'order_by']
      .filter((name) => name in params)
      .find((name) => PROTOTYPE_NAMES.has(params[name]!));
    expect(prototypeKeyParam(params)?.name).toBe(expected);
    expect(prototypeKeyParam(reversed)?.name).toBe(expected);
  });
});

import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from './errors.ts';
import { pageEnvelope, pageInOrder, pageOf, readPaging, sortedBy } from './paging.ts';
import { termsOf } from '../contract/contract.ts';
import { readParams } from '../contract/read.ts';

describe('list paging', () => {
  const read = (id: 'account.identity.list' | 'push.get' | 'historics.get', raw: Record<string, unknown>) => readParams(termsOf(id, '1.5').params, raw) as Record<string, number | undefined>;

  it('defaults to page 1 of 25, reads sizes as clients send them, and names the parameter it refuses', () => {
    expect(readPaging(read('account.identity.list', {}))).toEqual({ page: 1, perPage: 25 });
    expect(readPaging(read('account.identity.list', { page: '3', per_page: '7' }))).toEqual({ page: 3, perPage: 7 });
    expect(() => read('account.identity.list', { per_page: 101 })).toThrow(new BadRequest('per_page must be at most 100'));
    expect(() => read('account.identity.list', { page: 0 })).toThrow(new BadRequest('page must be at least 1'));
  });

  it('takes a list’s own size names, default and bound', () => {
    const rule = { defaultSize: 20 };
    const push = (raw: Record<string, unknown>) => {
      const p = read('push.get', raw);
      return readPaging({ page: p.page, per_page: p.per_page ?? p.perPage }, rule);
    };
    expect(push({ perPage: 500 }).perPage).toBe(500);
    expect(push({ per_page: 2, perPage: 500 }).perPage).toBe(2);
    expect(push({}).perPage).toBe(20);
    expect(() => read('historics.get', { max: 101 })).toThrow(new BadRequest('max must be at most 100'));
  });

  test.prop([fc.array(fc.nat(), { maxLength: 60 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 20 })])(
    'pages partition the list in order, and a page past the last is empty with the true counts',
    (all, page, perPage) => {
      const p = pageOf(all, { page, perPage });
      expect(p).toMatchObject({ count: all.length, page, per_page: perPage, pages: Math.ceil(all.length / perPage) });
      expect(p.items).toEqual(all.slice((page - 1) * perPage, page * perPage));
      if (page > p.pages) expect(p.items).toEqual([]);
    },
  );

  it('answers at least minPages pages and writes the envelope in the wire order', () => {
    const p = pageOf([], { page: 1, perPage: 25 }, { minPages: 1 });
    expect(JSON.stringify(pageEnvelope(p, 'subscriptions', p.items))).toBe('{"count":0,"page":1,"pages":1,"per_page":25,"subscriptions":[]}');
  });

  it('sorts stably in either direction and refuses an unknown order_dir', () => {
    const rows = [{ k: 2, n: 'a' }, { k: 1, n: 'b' }, { k: 2, n: 'c' }];
    expect(sortedBy(rows, (r) => r.k, 'asc').map((r) => r.n)).toEqual(['b', 'a', 'c']);
    expect(sortedBy(rows, (r) => r.k, 'desc').map((r) => r.n)).toEqual(['a', 'c', 'b']);
    expect(read('push.get', { order_dir: 'DESC' })['order_dir']).toBe('desc');
    expect(() => read('push.get', { order_dir: 'up' })).toThrow(new BadRequest('order_dir is invalid; valid values are: asc,desc'));
  });
});

describe('a page in order without sorting the list', () => {
  test.prop([
    fc.array(fc.record({ at: fc.integer({ min: 0, max: 20 }), i: fc.nat(5) }), { maxLength: 300 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 30 }),
    fc.boolean(),
  ])('pageInOrder answers the page a full stable sort would, with the whole count', (given, page, perPage, desc) => {
    // `k` is not compared: equal items must keep their given order, as a stable sort keeps it.
    const items = given.map((x, k) => ({ ...x, k }));
    const sign = desc ? -1 : 1;
    const compare = (a: { at: number; i: number }, b: { at: number; i: number }) => sign * (a.at - b.at || a.i - b.i);
    expect(pageInOrder(items, compare, { page, perPage })).toEqual(pageOf([...items].sort(compare), { page, perPage }));
  });
});

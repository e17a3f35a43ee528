
/**
 * How a list endpoint answers its pages: the page size when none is given (the account API's lists 25,
 * managed sources and push 20), and the least `pages` (recordings answer 1 for an empty list). The bounds
 * of `page` and the size are the endpoint's parameter schema's (contract/params.ts).
 */
export interface PagingRule {
  defaultSize?: number;
  /** Recordings answer `pages: 1` for an empty list; everything else answers 0. */
  minPages?: number;
}

export interface Paging {
  page: number;
  perPage: number;
}

/** One page of a list, in the envelope the API answers (`count, page, pages, per_page`). */
export interface Page<T> {
  count: number;
  page: number;
  pages: number;
  per_page: number;
  items: T[];
}

export const DEFAULT_PER_PAGE = 25;

/** The page a call asks for: `page` from 1, and its size, each read (and bounded) by the endpoint's schema. */
export function readPaging(p: { page?: number | undefined; per_page?: number | undefined }, rule: PagingRule = {}): Paging {
  return { page: p.page ?? 1, perPage: p.per_page ?? rule.defaultSize ?? DEFAULT_PER_PAGE };
}

/** A page past the last answers an empty list with the true counts, as the original service did. */
export function pageOf<T>(all: readonly T[], { page, perPage }: Paging, rule: PagingRule = {}): Page<T> {
  const pages = Math.max(rule.minPages ?? 0, Math.ceil(all.length / perPage));
  const from = (page - 1) * perPage;
  return { count: all.length, page, pages, per_page: perPage, items: all.slice(from, from + perPage) };
}

/** The wire envelope of a page: its counts and its items under the list's own key. */
export function pageEnvelope<T>(p: Page<unknown>, key: string, items: readonly T[]): Record<string, unknown> {
  return { count: p.count, page: p.page, pages: p.pages, per_page: p.per_page, [key]: items };
}

export type OrderDir = 'asc' | 'desc';

/** A stable sort: items with equal keys keep the list's order. */
export function sortedBy<T>(items: readonly T[], key: (t: T) => number | string, dir: OrderDir): T[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -sign : x > y ? sign : 0;
  });
}

/**
 * The page `paging` names of `items` in `compare`'s order, without sorting all of them: the first
 * `page × perPage` are kept in a bounded heap, so a first page of a long list costs n log(k), not
 * n log(n). The order is `[...items].sort(compare)`'s, ties kept in their given order.
 */
export function pageInOrder<T>(items: readonly T[], compare: (a: T, b: T) => number, paging: Paging): Page<T> {
  const need = paging.page * paging.perPage;
  if (need >= items.length / 4) return pageOf([...items].sort(compare), paging);
  // A max-heap (by `compare`, then by position) of the `need` smallest seen so far.
  const heap: number[] = [];
  const after = (x: number, y: number): boolean => {
    const c = compare(items[x]!, items[y]!);
    return c > 0 || (c === 0 && x > y);
  };
  const up = (k: number) => {
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!after(heap[k]!, heap[parent]!)) break;
      [heap[k], heap[parent]] = [heap[parent]!, heap[k]!];
      k = parent;
    }
  };
  const down = (k: number) => {
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let top = k;
      if (l < heap.length && after(heap[l]!, heap[top]!)) top = l;
      if (r < heap.length && after(heap[r]!, heap[top]!)) top = r;
      if (top === k) return;
      [heap[k], heap[top]] = [heap[top]!, heap[k]!];
      k = top;
    }
  };
  for (let x = 0; x < items.length; x++) {
    if (heap.length < need) {
      heap.push(x);
      up(heap.length - 1);
    } else if (after(heap[0]!, x)) {
      heap[0] = x;
      down(0);
    }
  }
  const first = heap.sort((x, y) => (after(x, y) ? 1 : after(y, x) ? -1 : 0)).map((x) => items[x]!);
  const page = pageOf(first, paging);
  return { ...page, count: items.length, pages: Math.ceil(items.length / paging.perPage) };
}

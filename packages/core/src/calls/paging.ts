import { oneOf } from './errors.ts';
import type { Params } from './params.ts';

/**
 * How a list endpoint reads its page and answers it. The account API's lists default to 25 items of
 * at most 100; managed sources and push default to 20 of at most 1000, historics names the size `max`.
 */
export interface PagingRule {
  /** Names of the page-size parameter, first found wins (push also reads the misspelt `perPage` one client sends). */
  sizeParams?: readonly string[];
  defaultSize?: number;
  maxSize?: number;
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
export const MAX_PER_PAGE = 100;

/** Reads `page` (from 1) and the page size; a value out of bounds is a 400 naming the parameter. */
export function readPaging(params: Params, rule: PagingRule = {}): Paging {
  const page = params.int('page', { min: 1 }) ?? 1;
  const bounds = { min: 1, max: rule.maxSize ?? MAX_PER_PAGE };
  let perPage: number | undefined;
  for (const name of rule.sizeParams ?? ['per_page']) {
    perPage = params.int(name, bounds);
    if (perPage !== undefined) break;
  }
  return { page, perPage: perPage ?? rule.defaultSize ?? DEFAULT_PER_PAGE };
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

export function readOrderDir(params: Params, fallback: OrderDir): OrderDir {
  return oneOf('order_dir', params.string('order_dir')?.toLowerCase() ?? fallback, ['asc', 'desc'] as const);
}

/** A stable sort: items with equal keys keep the list's order. */
export function sortedBy<T>(items: readonly T[], key: (t: T) => number | string, dir: OrderDir): T[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -sign : x > y ? sign : 0;
  });
}

import type { Params } from '../engine/params.ts';

/** One page of a list, in the envelope the account API answers (`count, page, pages, per_page`). */
export interface Page<T> {
  count: number;
  page: number;
  pages: number;
  per_page: number;
  items: T[];
}

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** Reads `page` (from 1) and a page-size parameter (`per_page` unless named otherwise). */
export function readPaging(params: Params, sizeParam = 'per_page', defaultSize = DEFAULT_PER_PAGE): { page: number; perPage: number } {
  const page = params.int('page', { min: 1 }) ?? 1;
  const perPage = params.int(sizeParam, { min: 1, max: MAX_PER_PAGE }) ?? defaultSize;
  return { page, perPage };
}

/** A page past the last answers an empty list with the true counts, as the original service did. */
export function pageOf<T>(all: readonly T[], page: number, perPage: number): Page<T> {
  const pages = Math.ceil(all.length / perPage);
  const from = (page - 1) * perPage;
  return { count: all.length, page, pages, per_page: perPage, items: all.slice(from, from + perPage) };
}

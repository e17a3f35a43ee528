// What other folders may read of historics queries: small queries, so no handler imports another's handlers.
import { own } from '../calls/input-limits.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { historicsDecider, historicsStream, type HistoricsQuery } from './historics-query.ts';

/** A query of an account, as `/dpu` with `historics_id` and push delivery need it (undefined if none). */
export async function historicsQuery(uow: UnitOfWork, username: string, id: string): Promise<HistoricsQuery | undefined> {
  return own((await uow.load(historicsDecider, historicsStream(username))).byId, id);
}

/** The `sources` a historics query or preview names, as clients write them (any case, stray commas). */
export function historicsSourceNames(sources: readonly string[] | undefined): string[] | undefined {
  return sources?.map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0);
}

import { requireService } from '../accounting/package-service.ts';
import { paramsOf } from '../handling/params-of.ts';
import { NotFound } from '../calls/errors.ts';
import { pageEnvelope, pageOf, readPaging } from '../calls/paging.ts';
import type { HandlerTable } from '../handling/handler.ts';
import { referenceSet, referenceSetsOf } from './reference-sets.ts';

/**
 * Reference data (docs/clients.md#reference-data): constant tables, so the calls read no stream and write nothing.
 * A service without reference data (the social network) lists no sets, as an empty list rather than a
 * 404, so a client that walks every service reads the same shape from each.
 */
export const referenceHandlers: HandlerTable = {
  'insight.reference.list'(ctx) {
    const params = paramsOf(ctx, 'insight.reference.list');
    const sets = referenceSetsOf(requireService(ctx, params.service));
    const p = pageOf(sets, readPaging(params));
    return { body: pageEnvelope(p, 'data', p.items.map((s) => ({ name: s.name, slug: s.slug, description: s.description }))) };
  },

  'insight.reference.get'(ctx) {
    const params = paramsOf(ctx, 'insight.reference.get');
    const service = requireService(ctx, params.service);
    const slug = params.slug;
    const s = referenceSet(service, slug);
    if (!s) throw new NotFound(`Reference data set ${slug} not found for ${service}`);
    // The recorded answer is the whole set, unpaged; a client that asks for a page gets one, with its counts.
    if (params.page === undefined && params.per_page === undefined) return { body: { count: s.values.length, values: s.values } };
    const p = pageOf(s.values, readPaging(params));
    return { body: { ...pageEnvelope(p, 'values', p.items) } };
  },
};

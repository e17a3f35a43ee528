import { requireService } from '../accounting/package-service.ts';
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
    const sets = referenceSetsOf(requireService(ctx));
    const p = pageOf(sets, readPaging(ctx.params));
    return { body: pageEnvelope(p, 'data', p.items.map((s) => ({ name: s.name, slug: s.slug, description: s.description }))) };
  },

  'insight.reference.get'(ctx) {
    const service = requireService(ctx);
    const slug = ctx.params.requireString('slug');
    const s = referenceSet(service, slug);
    if (!s) throw new NotFound(`Reference data set ${slug} not found for ${service}`);
    // The recorded answer is the whole set, unpaged; a client that asks for a page gets one, with its counts.
    if (!ctx.params.has('page') && !ctx.params.has('per_page')) return { body: { count: s.values.length, values: s.values } };
    const p = pageOf(s.values, readPaging(ctx.params));
    return { body: { ...pageEnvelope(p, 'values', p.items) } };
  },
};

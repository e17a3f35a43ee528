// What other folders may read of the recordings: small queries, so no handler imports another's handlers.
import { BadRequest, NotFound } from '../calls/errors.ts';
import { own } from '../calls/input-limits.ts';
import { HASH } from '../filters/filter-registry.ts';
import type { CallContext } from '../handling/handler.ts';
import { namedById } from './recording-view.ts';
import { recordingByHash, recordingsDecider, recordingsStream, type Recording, type Recordings } from './recording.ts';
import { callParams } from '../handling/params-of.ts';

/** The recording a call names: `id` from 1.3, `hash` before. */
export async function namedRecording(ctx: CallContext, state?: Recordings): Promise<Recording> {
  const s = state ?? (await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username)));
  if (namedById(ctx.version)) {
    const id = callParams(ctx)['id'] as string | undefined;
    if (id === undefined) throw new BadRequest('No id was supplied.');
    const r = own(s.byId, id);
    if (!r) throw new NotFound('Subscription not found');
    return r;
  }
  const hash = callParams(ctx)['hash'] as string | undefined;
  if (hash === undefined) throw new BadRequest("Missing param 'hash'");
  const r = recordingByHash(s, hash);
  if (!r) {
    if (!HASH.test(hash)) throw new BadRequest('hash must be a valid hash');
    throw new NotFound('Subscription not found');
  }
  return r;
}

import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { archiveInteractions } from '../historics/archive.ts';
import { namedFilter } from '../filters/index.ts';
import { historicsSourceNames } from '../historics/queries.ts';
import { paramsOf } from '../handling/params-of.ts';
import { checkHistoricsSources } from '../historics/historics-query.ts';
import { parsePreviewParameters, runPreviewAnalysis, type PreviewData } from './preview-analyses.ts';
import { existingPreview, previewFinishAt, previewProgressAt, previewStatusAt, previewsDecider, previewsStream, type Preview } from './preview.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { freshId } from '../calls/fresh-id.ts';
import { recordingIndexOf } from '../recording-index/recording-index.ts';

const stream = (ctx: CallContext): string => previewsStream(ctx.account.username);

export function previewView(p: Preview, now: number, username: string): Record<string, unknown> {
  const status = previewStatusAt(p, now);
  return {
    id: p.id,
    name: 'preview',
    progress: previewProgressAt(p, now),
    status,
    feeds: p.sources.join(','),
    sample: 1,
    start: p.start,
    end: p.end,
    created_at: epochSeconds(p.createdAt),
    user: username,
    parameters: p.parameters,
    hash: p.hash,
    ...(status === 'succeeded' && p.data !== null ? { data: p.data } : {}),
  };
}

/** What a preview shows: its analyses over the archive of its period, as of when it finished. */
export async function previewData(ctx: CallContext, p: Preview): Promise<PreviewData[]> {
  const filter = await namedFilter(ctx.uow, p.hash);
  const items = await archiveInteractions({ uow: ctx.uow, recordingIndex: recordingIndexOf(ctx), now: previewFinishAt(p), account: ctx.account }, filter, p.sources, p.start * 1000, p.end * 1000);
  return p.analyses.map((a) => runPreviewAnalysis(a, items));
}

export const previewHandlers: HandlerTable = {
  async 'preview.create'(ctx) {
    const p = paramsOf(ctx, 'preview.create');
    const { hash, start } = p;
    const nowSec = epochSeconds(ctx.now);
    const end = p.end ?? Math.min(start + 86_400, nowSec - 3600);
    const sources = historicsSourceNames(p.sources);
    if (sources !== undefined) checkHistoricsSources(sources);
    // A list of triples is joined as clients join them.
    const parameters = typeof p.parameters === 'string' ? p.parameters : p.parameters.join(';');
    const analyses = parsePreviewParameters(parameters);
    const filter = await namedFilter(ctx.uow, hash);
    const known = await ctx.uow.load(previewsDecider, stream(ctx));
    const id = freshId(ctx.ids, 40, (x) => known.byId[x] !== undefined);
    await ctx.uow.execute(previewsDecider, stream(ctx), {
      type: 'CreatePreview',
      id,
      hash: filter.hash,
      start,
      end,
      sources: sources && sources.length > 0 ? [...new Set(sources)] : [...ctx.account.package.services],
      parameters,
      analyses,
      at: ctx.now,
    });
    return { body: { id, created_at: nowSec } };
  },

  async 'preview.get'(ctx) {
    const { id } = paramsOf(ctx, 'preview.get');
    let p = existingPreview(await ctx.uow.load(previewsDecider, stream(ctx)), id);
    if (previewStatusAt(p, ctx.now) !== 'succeeded') return { status: 202, body: previewView(p, ctx.now, ctx.account.username) };
    if (p.data === null) {
      const data = await previewData(ctx, p);
      p = (await ctx.uow.execute(previewsDecider, stream(ctx), { type: 'CompletePreview', id, at: ctx.now, data })).state.byId[id]!;
    }
    return { status: 200, body: previewView(p, ctx.now, ctx.account.username) };
  },
};

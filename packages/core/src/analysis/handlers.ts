import { namedService } from '../accounting/package-service.ts';
import { paramsOf } from '../handling/params-of.ts';
import { windowAt } from '../accounting/credit-window.ts';
import { creditsDecider, creditsStream } from '../accounting/credit-window.ts';
import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { compileFilter, type Interaction } from '../filters/index.ts';
import { RETENTION_MS, recordingIndexOf } from '../recording-index/recording-index.ts';
import { namedRecording } from '../recordings/queries.ts';
import { checkAnalysisTargets, type AnalysisRequest } from './analysis-request.ts';
import { runAnalysis } from './run-analysis.ts';
import { AuthorStamps } from './distribution.ts';

/** `/insight/analyze`: the analysis request, read by its schema (`parameters` as an object, JSON text or flattened keys; `filter`, `start`, `end`). */
async function analyze(ctx: CallContext) {
  const p = paramsOf(ctx, 'insight.analyze');
  namedService(ctx, p.service);
  checkAnalysisTargets(p.parameters, 'parameters');
  const request: AnalysisRequest = { parameters: p.parameters, ...(p.filter !== undefined ? { filter: p.filter } : {}), ...(p.start !== undefined ? { start: p.start } : {}), ...(p.end !== undefined ? { end: p.end } : {}) };
  const recording = await namedRecording(ctx);
  return { body: await runAnalysis({ recordingIndex: recordingIndexOf(ctx), now: ctx.now, account: ctx.account }, recording.id, request) };
}

export { SAMPLE_MAX } from '../contract/params.ts';
export const SAMPLE_DEFAULT = 10;

/**
 * `/insight/sample`: up to `count` recorded interactions (newest first) within `start`..`end` and the
 * query `filter`. `remaining` and `reset_at` report the general allowance the call draws from.
 */
async function sample(ctx: CallContext) {
  const p = paramsOf(ctx, 'insight.sample');
  namedService(ctx, p.service);
  const count = p.count ?? SAMPLE_DEFAULT;
  const from = p.start !== undefined ? p.start * 1000 : ctx.now - RETENTION_MS;
  const to = p.end !== undefined ? p.end * 1000 : ctx.now + 1;
  if (from > to) throw new BadRequest('Start cannot be after end');
  const text = p.filter;
  const filter = text === undefined ? undefined : compileFilter(text, { kind: 'query' });
  const recording = await namedRecording(ctx);
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  const set = index.recording(recording.id);
  const interactions: Interaction[] = [];
  if (set) {
    const rows = set.rowsBetween(Math.max(from, ctx.now - RETENTION_MS), to);
    for (let k = rows.length - 1; k >= 0 && interactions.length < count; k--) {
      const doc = set.docs[rows[k]!]!;
      if (!filter || filter.match(doc).matched) interactions.push(doc);
    }
  }
  const credits = await ctx.uow.load(creditsDecider, creditsStream(ctx.account.username));
  const w = windowAt(credits, 'general', ctx.now);
  return {
    body: {
      remaining: Math.max(0, ctx.account.package.credits_per_hour - w.used),
      reset_at: Math.floor(w.reset / 1000),
      interactions,
    },
  };
}

/**
 * `/insight/tags`: the tag namespaces (`interaction.tag_tree.<path>`) found in the recording's index,
 * once the index has the audience the package requires, each only if enough unique authors carry it.
 */
async function tags(ctx: CallContext) {
  namedService(ctx, paramsOf(ctx, 'insight.tags').service);
  const recording = await namedRecording(ctx);
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  const set = index.recording(recording.id);
  if (!set) return { body: [] };
  const { redaction_audience_min: audienceMin, redaction_bucket_min: bucketMin } = ctx.account.package;
  const rows = set.rowsBetween(ctx.now - RETENTION_MS, ctx.now + 1);
  const stamps = new AuthorStamps(index.authorCount);
  const authors = set.authors.data;
  if (stamps.count(rows, authors) < audienceMin) return { body: [] };
  const byPath = new Map<string, number[]>();
  for (let k = 0; k < rows.length; k++) {
    const inner = set.docs[rows[k]!]!.interaction as Record<string, unknown> | undefined;
    const tree = inner?.tag_tree;
    if (typeof tree !== 'object' || tree === null) continue;
    for (const path of leafPaths(tree as Record<string, unknown>, 'interaction.tag_tree')) {
      let list = byPath.get(path);
      if (!list) byPath.set(path, (list = []));
      list.push(rows[k]!);
    }
  }
  const out = [...byPath].filter(([, r]) => stamps.count(Int32Array.from(r), authors) >= bucketMin).map(([p]) => p);
  return { body: out.sort() };
}

function leafPaths(node: Record<string, unknown>, prefix: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (Array.isArray(v)) out.push(`${prefix}.${k}`);
    else if (typeof v === 'object' && v !== null) out.push(...leafPaths(v as Record<string, unknown>, `${prefix}.${k}`));
  }
  return out;
}

export const analysisHandlers: HandlerTable = {
  'insight.analyze': analyze,
  'insight.sample': sample,
  'insight.tags': tags,
};

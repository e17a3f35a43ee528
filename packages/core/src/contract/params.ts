import * as z from 'zod';
import type { VersionId } from '../catalogue/versions.ts';
import { analysisRequestChecks, analysisRequestSchema, analysisSpecSchema, analysisWindowShape } from './analysis-request.ts';
import { strategyRequestSchema } from './strategy-request.ts';
import { epoch, flag, hex, jsonObject, jsonValue, list, refused, text, whole, wireChoice, wireParams, word } from './wire.ts';

/**
 * The parameters of every endpoint, one schema each (versioned where a version changed them), merged
 * from the path, the query string and the body as the engine receives them. Bounds that depend on the
 * account (its services, its package's limits) or on stored state are judged by the aggregates; what a
 * parameter is on the wire is said here and nowhere else.
 */

const id = () => text();
const name = () => text({ max: 255 });
const hash32 = () => hex(32, 'a valid hash (32 hex characters)');
const service = () => text().meta({ description: "One of the account package's services", examples: ['facebook'] });
/** An identity id on token and limit paths (an identity's `{id}` itself is free text: unknown ones are 404). */
const identityId = () => hex(32, 'a valid hash');

/** `page` from 1 and the page size, bounded per list. */
const paging = (maxSize: number) => ({ page: whole({ min: 1 }).optional(), per_page: whole({ min: 1, max: maxSize }).optional() });
const orderDir = () => word(['asc', 'desc'], { caseless: true }).optional();

export const STATUS_WORDS = {
  identity: ['active', 'disabled'],
  task: ['queued', 'completed'],
  pushInitial: ['active', 'paused', 'waiting_for_start'],
  corePeriod: ['current', 'day', 'hour'],
  accountPeriod: ['hourly', 'daily', 'monthly'],
} as const;

/** A pull page is at most this many bytes (`size`), 20 MiB unless given. */
export const MAX_PULL_SIZE = 52_428_800;
/** `/insight/sample` answers at most this many interactions (`count`). */
export const SAMPLE_MAX = 100;

// Tasks ---------------------------------------------------------------------------------------------
export const TASK_TYPES = ['analysis', 'strategy'] as const;
/** Strategy tasks are served from this version (before it, `type` may only be `analysis`). */
export const STRATEGY_TASKS_FROM: VersionId = '1.5';
/** Before `STRATEGY_TASKS_FROM` only analysis tasks (typed as the later set: one handler serves both). */
const taskTypeIn = (v15: boolean): z.ZodType<(typeof TASK_TYPES)[number], unknown> => (v15 ? word(TASK_TYPES) : word(['analysis']));
export const tasksParams = {
  list: (v15: boolean) => wireParams({ service: service(), type: taskTypeIn(v15).optional(), status: word(STATUS_WORDS.task).optional(), ...paging(100) }),
  get: (v15: boolean) => wireParams({ service: service(), type: taskTypeIn(v15).optional(), id: id() }),
  /**
   * The task's `parameters` are an analysis request or a strategy request by its `type` (analysis when
   * none is given): one object per type, so each is documented and read by its own schema.
   */
  create: (v15: boolean) => {
    const task = { service: service(), name: text(), subscription_id: id() };
    const analysis = z.object({
      ...task,
      type: z.literal('analysis'),
      parameters: jsonValue(analysisRequestSchema).meta({ description: 'The analysis request: `parameters` (the analysis), `filter`, `start`, `end`' }),
    });
    const strategy = z.object({
      ...task,
      type: z.literal('strategy'),
      parameters: jsonValue(strategyRequestSchema).meta({ description: 'The strategy request: `strategy`, `version`, `parameters` (`audience`, `keywords`, `comparison_audience`, `groups`), `start`, `end`' }),
    });
    return v15 ? wireChoice('type', 'analysis', [analysis, strategy], { flattened: ['parameters'] }) : wireChoice('type', 'analysis', [analysis], { flattened: ['parameters'] });
  },
};

// Insight -------------------------------------------------------------------------------------------
/**
 * Before 1.3 a recording is named by its filter `hash`; from 1.3 by its `id` (docs/contract.md#versions): two schemas,
 * so the change shows in the documents. `both` holds what the two share.
 */
function named<S extends z.ZodRawShape>(byId: boolean, shape: S, opts: { flattened?: readonly (keyof S & string)[] } = {}) {
  const base = { service: service().optional(), ...shape };
  return byId ? wireParams({ ...base, id: id().optional() }, opts) : wireParams({ ...base, hash: text().optional() }, opts);
}
export const insightParams = {
  filter: () => wireParams({ service: service().optional(), csdl: text() }),
  analyze: (byId: boolean) => named(byId, { parameters: analysisSpecSchema, ...analysisWindowShape }, { flattened: ['parameters'] }).check(analysisRequestChecks),
  sample: (byId: boolean) => named(byId, { count: whole({ min: 1, max: SAMPLE_MAX }).optional(), start: epoch().optional(), end: epoch().optional(), filter: text().optional() }),
  tags: (byId: boolean) => named(byId, {}),
  start: (byId: boolean) =>
    byId
      ? wireParams({ service: service().optional(), name: text().optional(), id: id().optional(), hash: text().optional() })
      : wireParams({ service: service().optional(), name: text().optional(), hash: text().optional() }),
  stop: (byId: boolean) => named(byId, {}),
  update: (byId: boolean) =>
    byId
      ? wireParams({ service: service().optional(), id: id().optional(), name: text().optional(), hash: text().optional() })
      : wireParams({ service: service().optional(), hash: text().optional(), name: text().optional() }),
  get: (byId: boolean) =>
    byId
      ? wireParams({
          service: service().optional(),
          id: id().optional(),
          ...paging(100),
          order_by: word(['created_at', 'start', 'name', 'status'], { caseless: true }).optional(),
          order_dir: orderDir(),
        })
      : wireParams({ service: service().optional(), hash: text().optional() }),
  referenceList: () => wireParams({ service: service(), ...paging(100) }),
  referenceGet: () => wireParams({ service: service(), slug: text(), ...paging(100) }),
};

// Account -------------------------------------------------------------------------------------------
/** A limit figure: absent keeps it, `null` (JSON null or the text `null`) clears it, else a whole number. */
const figure = () => z.preprocess((v) => (v === 'null' ? null : v), z.union([z.null(), whole({ min: 0 })])).optional();
export const accountParams = {
  identityList: () => wireParams({ label: text().optional(), ...paging(100) }),
  identityCreate: () => wireParams({ label: text(), status: word(STATUS_WORDS.identity).optional(), master: flag().optional() }),
  identityGet: () => wireParams({ id: id() }),
  identityUpdate: () => wireParams({ id: id(), label: text().optional(), status: word(STATUS_WORDS.identity).optional(), master: flag().optional() }),
  tokenList: () => wireParams({ identity_id: identityId(), ...paging(100) }),
  token: () => wireParams({ identity_id: identityId(), service: service(), token: text() }),
  tokenNamed: () => wireParams({ identity_id: identityId(), service: service() }),
  limitList: () => wireParams({ service: service(), ...paging(100) }),
  limit: () => wireParams({ identity_id: identityId(), service: service(), total_allowance: figure(), analyze_queries: figure() }, { keepNull: ['total_allowance', 'analyze_queries'] }),
  limitNamed: () => wireParams({ identity_id: identityId(), service: service() }),
  usage: () => wireParams({ period: word(STATUS_WORDS.accountPeriod).optional(), start: epoch().optional(), end: epoch().optional() }),
};

// Core ----------------------------------------------------------------------------------------------
export const coreParams = {
  filter: () => wireParams({ csdl: text() }),
  usage: () => wireParams({ period: word(STATUS_WORDS.corePeriod).optional() }),
  dpu: () => wireParams({ hash: text().optional(), historics_id: text().optional() }),
  balance: () => wireParams({}),
};

// Push ----------------------------------------------------------------------------------------------
const outputParams = () => jsonObject().meta({ description: "The output type's settings (`format`, `url`, `auth.type`, ...)" });
const pushPaging = () => ({ ...paging(1000), perPage: whole({ min: 1, max: 1000 }).optional().meta({ description: 'As per_page (one client spells it so)' }) });
export const pushParams = {
  validate: () => wireParams({ output_type: text().optional(), output_params: outputParams().optional() }, { flattened: ['output_params'] }),
  create: (playbackAccepted: boolean) =>
    wireParams({
      name: name(),
      output_type: text().optional(),
      output_params: outputParams().optional(),
      historics_id: hex(20, 'a valid historics id (20 hex characters)').optional(),
      playback_id: playbackAccepted
        ? hex(20, 'a valid historics id (20 hex characters)').optional().meta({ description: 'A synonym of historics_id before 1.2' })
        : refused('is not accepted from API 1.2; use historics_id').optional(),
      hash: hash32().optional(),
      initial_status: word(STATUS_WORDS.pushInitial, { message: `must be one of ${STATUS_WORDS.pushInitial.join(', ')}` }).optional(),
      start: epoch().optional().meta({ description: 'Unix seconds; 0 means not given' }),
      end: epoch().optional().meta({ description: 'Unix seconds; 0 means not given' }),
    }, { flattened: ['output_params'] }),
  named: () => wireParams({ id: id() }),
  update: () => wireParams({ id: id(), output_type: text().optional(), output_params: outputParams().optional(), name: name().optional() }, { flattened: ['output_params'] }),
  log: () => wireParams({ id: id().optional(), order_by: word(['request_time'], { caseless: true }).optional(), ...pushPaging(), order_dir: orderDir() }),
  get: () =>
    wireParams({
      id: id().optional(),
      hash: text().optional(),
      historics_id: text().optional(),
      historic_id: text().optional().meta({ description: 'As historics_id' }),
      include_finished: flag().optional(),
      order_by: word(['created_at', 'id', 'request_time'], { caseless: true }).optional(),
      ...pushPaging(),
      order_dir: orderDir(),
    }),
  pull: () => wireParams({ id: id(), size: whole({ min: 1, max: MAX_PULL_SIZE }).optional(), cursor: text().optional() }),
};

// Historics -----------------------------------------------------------------------------------------
const sources = () => list(text()).meta({ description: 'Source names', examples: [['facebook']] });
const reason = () => text({ max: 1000 }).optional();
export const historicsParams = {
  prepare: () => wireParams({ hash: text(), start: whole(), end: whole(), sources: sources(), name: text(), sample: whole().optional() }),
  named: () => wireParams({ id: id() }),
  withReason: () => wireParams({ reason: reason(), id: id() }),
  update: () => wireParams({ id: id(), name: text() }),
  get: () => wireParams({ id: id().optional(), max: whole({ min: 1, max: 100 }).optional(), page: whole({ min: 1 }).optional() }),
  status: () => wireParams({ start: whole(), end: whole(), sources: sources().optional() }),
};

// Preview -------------------------------------------------------------------------------------------
export const previewParams = {
  create: () =>
    wireParams({
      hash: text(),
      start: whole(),
      end: whole().optional(),
      sources: sources().optional(),
      parameters: z
        .union([text({ max: 10_000 }), z.array(z.string()).max(100)], { error: 'must be a string' })
        .meta({ description: 'Analyses as `target,analysis,argument` triples joined by `;`, or a list of triples', examples: ['interaction.content,wordCount,10'] }),
    }),
  get: () => wireParams({ id: id() }),
};

// Managed sources -----------------------------------------------------------------------------------
/** One auth or resource entry: its `parameters` (an object or JSON text of one), an auth's `expires_at`. */
const entry = () =>
  z.looseObject({
    parameters: jsonObject(),
    expires_at: z.preprocess((v) => (v === '' || v === null ? undefined : v), whole({ min: 0 }).optional()).meta({ description: 'Unix seconds' }),
  });
/** A list of entries, JSON text of one, or one entry alone. */
const entries = () => z.preprocess((v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? [v] : v), list(entry()));
const sourceSettings = () => jsonValue(z.union([z.tuple([]), z.record(z.string(), z.unknown())], { error: 'must be a JSON object' })).meta({ description: "The source type's settings; `[]` for none" });
export const sourceParams = {
  create: () =>
    wireParams({
      source_type: text(),
      name: name(),
      parameters: sourceSettings().optional(),
      resources: entries().optional(),
      auth: entries().optional(),
      validate: flag().optional(),
    }, { flattened: ['parameters'] }),
  named: () => wireParams({ id: id() }),
  update: () =>
    wireParams({
      id: id(),
      source_type: text().optional(),
      name: name().optional(),
      parameters: sourceSettings().optional(),
      resources: entries().optional(),
      auth: entries().optional(),
      validate: flag().optional(),
    }, { flattened: ['parameters'] }),
  get: () => wireParams({ id: id().optional(), source_type: text().optional(), ...paging(1000) }),
  log: () => wireParams({ id: id(), ...paging(1000) }),
  authAdd: () => wireParams({ id: id(), auth: entries() }),
  authRemove: () => wireParams({ id: id(), auth_ids: list(text(), { min: 1 }) }),
  resourceAdd: () => wireParams({ id: id(), resources: entries() }),
  resourceRemove: () => wireParams({ id: id(), resource_ids: list(text(), { min: 1 }) }),
  categories: () => wireParams({}),
  ingest: () => wireParams({ source_id: id() }),
};

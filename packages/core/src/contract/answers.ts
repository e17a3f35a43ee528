import * as z from 'zod';

/**
 * The answers of every endpoint, as the wire carries them (docs/clients.md): the fields clients read, with
 * their types. Objects are loose (a field added later is not a breaking change, docs/contract.md#versions), so an answer
 * validates when every field named here is there with its type.
 */

const seconds = () => z.int().min(0).meta({ description: 'Unix seconds', examples: [1516139814] });
const hexId = (n: number) => z.string().regex(new RegExp(`^[0-9a-f]{${n}}$`)).meta({ examples: ['0123456789abcdef0123456789abcdef01234567'.slice(0, n)] });
const count = () => z.int().min(0);

/** Every error: `{"error": "..."}`, with `original_error` on some. */
export const ErrorAnswer = z.looseObject({ error: z.string().meta({ examples: ["Missing param 'hash'"] }), original_error: z.string().optional() }).meta({ id: 'Error' });

/** A page of a list: its counts and its items under the list's own key. */
const page = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.looseObject({ count: count(), page: z.int().min(1), pages: count(), per_page: z.int().min(1), [key]: z.array(item) } as { count: z.ZodInt; page: z.ZodInt; pages: z.ZodInt; per_page: z.ZodInt } & Record<K, z.ZodArray<T>>);

// Account -------------------------------------------------------------------------------------------
const identityShape = { id: hexId(32), label: z.string(), status: z.enum(['active', 'disabled']), master: z.boolean(), created_at: seconds(), updated_at: seconds(), expires_at: z.null() };
export const Identity = z.looseObject(identityShape).meta({ id: 'Identity' });
export const NewIdentity = z.looseObject({ ...identityShape, api_key: hexId(32) }).meta({ id: 'NewIdentity' });
export const Token = z.looseObject({ service: z.string(), token: z.string(), created_at: seconds(), updated_at: seconds(), expires_at: z.null() }).meta({ id: 'Token' });
export const Limit = z.looseObject({ id: hexId(32), service: z.string(), total_allowance: z.int().min(0).nullable(), analyze_queries: z.int().min(0).nullable() }).meta({ id: 'Limit' });
export const UsageLine = z.looseObject({ quantity: z.number(), cost: z.number(), category: z.string(), unit: z.string(), source: z.string(), timestamp: seconds() }).meta({ id: 'UsageLine' });
export const accountAnswers = {
  identityList: page('identities', Identity),
  tokenList: page('tokens', Token),
  limitList: page('limits', Limit),
  usage: z.union([z.tuple([]), z.looseObject({ usage: z.array(UsageLine) })]),
};

// Tasks ---------------------------------------------------------------------------------------------
export const Task = z
  .looseObject({
    id: hexId(40),
    identity_id: z.string().nullable(),
    subscription_id: z.string(),
    name: z.string(),
    type: z.enum(['analysis', 'strategy']),
    parameters: z.record(z.string(), z.unknown()),
    result: z.unknown(),
    usage: z.record(z.string(), z.int()),
    steps_completed: z.int().nullable(),
    total_steps: z.int().nullable(),
    message: z.string(),
    status: z.enum(['queued', 'completed']),
    created_at: seconds(),
    updated_at: seconds(),
  })
  .meta({ id: 'Task' });
export const taskAnswers = { created: z.looseObject({ id: hexId(40) }), list: page('tasks', Task) };

// Insight -------------------------------------------------------------------------------------------
/** One schema per variant, made once, so each is one named shape in the documents. */
function variants<T>(make: (on: boolean) => T): (on: boolean) => T {
  const made = [make(false), make(true)] as const;
  return (on) => made[on ? 1 : 0];
}

// A field present in some versions only is added with `extend`, never by a conditional spread: the spread
// leaves an optional key typed `X | undefined`, which a consumer's `exactOptionalPropertyTypes` refuses
// in the declarations we publish.
const RecordingFields = z.looseObject({
    hash: z.string(),
    name: z.string(),
    service: z.string(),
    status: z.enum(['running', 'stopped']),
    start: seconds(),
    end: seconds().nullable(),
    created_at: seconds(),
    volume: count(),
    reached_capacity: z.boolean(),
    remaining_index_capacity: count(),
    remaining_account_capacity: count(),
  });
/** Before 1.3 a recording is named by its `hash`; from 1.3 it has an `id` (docs/contract.md#versions). */
export const Recording = variants((byId: boolean) =>
  (byId ? RecordingFields.extend({ id: hexId(40), identity_id: z.string().nullable() }) : RecordingFields).meta({ id: byId ? 'Recording' : 'RecordingByHash' }),
);
const dpuText = () => z.string().regex(/^\d+(\.\d+)?$/).meta({ description: 'DPU as decimal text', examples: ['0.1'] });
export const AnalysisResult = z.looseObject({
  interactions: count(),
  unique_authors: count(),
  analysis: z.looseObject({ analysis_type: z.string(), parameters: z.record(z.string(), z.unknown()), redacted: z.boolean(), results: z.array(z.looseObject({ key: z.union([z.string(), z.number()]), interactions: count(), unique_authors: count() })) }),
}).meta({ id: 'AnalysisResult' });
export const insightAnswers = {
  validated: z.looseObject({ created_at: z.string().meta({ description: 'Unix seconds as text', examples: ['1516139814'] }), dpu: dpuText() }),
  compiled: z.looseObject({ hash: hexId(32), created_at: z.string().meta({ examples: ['1516139814'] }), dpu: dpuText() }),
  started: z.looseObject({ id: hexId(40) }),
  sample: z.looseObject({ remaining: count(), reset_at: seconds(), interactions: z.array(z.record(z.string(), z.unknown())) }),
  tags: z.array(z.string()),
  get: (byId: boolean) => (byId ? z.union([Recording(true), page('subscriptions', Recording(true))]) : z.union([Recording(false), z.array(Recording(false))])),
  referenceList: page('data', z.looseObject({ slug: z.string(), name: z.string(), description: z.string() })),
  referenceGet: z.looseObject({ count: count(), values: z.array(z.unknown()) }),
};

// Core ----------------------------------------------------------------------------------------------
const coreTime = () => z.string().meta({ description: 'YYYY-MM-DD HH:MM:SS, UTC', examples: ['2018-01-16 21:56:54'] });
export const Dpu = z.looseObject({ dpu: z.number().min(0), detail: z.record(z.string(), z.unknown()) });
export const coreAnswers = {
  validated: z.looseObject({ created_at: coreTime(), dpu: dpuText() }),
  compiled: z.looseObject({ hash: hexId(32), created_at: coreTime(), dpu: dpuText() }),
  /** Empty usage is `[]` in 1.0 and `{}` from 1.1 (a breaking change). */
  usage: (emptyObject: boolean) =>
    z.union([
      emptyObject ? z.strictObject({}) : z.tuple([]),
      z.looseObject({ start: z.string(), end: z.string(), streams: z.record(z.string(), z.looseObject({ licenses: z.record(z.string(), count()), seconds: count() })) }),
    ]),
  balance: z.looseObject({
    balance: z.looseObject({
      plan: z.string(),
      threshold: z.number(),
      allowances: z.array(z.looseObject({ name: z.string(), categories: z.array(z.string()), cost: z.number(), allowance: z.number(), remaining: z.number(), usage: z.number() })),
    }),
  }),
};

// Push ----------------------------------------------------------------------------------------------
export const PushSubscription = z
  .looseObject({
    id: hexId(32),
    name: z.string(),
    output_type: z.string(),
    output_params: z.record(z.string(), z.unknown()),
    created_at: seconds(),
    user_id: z.int(),
    hash: z.string(),
    hash_type: z.enum(['stream', 'historic']),
    status: z.enum(['active', 'paused', 'waiting_for_start', 'finishing', 'finished', 'failed', 'retrying', 'finishing_paused']),
    last_request: seconds().nullable(),
    last_success: seconds().nullable(),
    remaining_bytes: count().nullable(),
    lost_data: z.boolean(),
    start: seconds(),
    end: seconds().nullable(),
    interaction_count: count().optional(),
  })
  .meta({ id: 'PushSubscription' });
export const pushAnswers = {
  validated: z.looseObject({ success: z.literal(true), message: z.string() }),
  log: z.looseObject({ success: z.literal(true), count: count(), log_entries: z.array(z.looseObject({ request_time: seconds(), success: z.boolean(), subscription_id: hexId(32), message: z.string() })) }),
  get: z.union([PushSubscription, z.looseObject({ subscriptions: z.array(PushSubscription), count: count() })]),
  /** A page of interactions: a JSON array, or newline-delimited JSON as text (`format`). */
  pull: z.union([z.array(z.unknown()), z.string()]),
};

// Historics -----------------------------------------------------------------------------------------
const Availability = z.looseObject({
  start: z.int(),
  end: z.int(),
  sources: z.record(z.string(), z.looseObject({ status: z.number().min(0).max(100), versions: z.array(z.string()), augmentations: z.union([z.array(z.unknown()), z.record(z.string(), z.number())]) })),
}).meta({ id: 'Availability' });
const HistoricsQueryFields = z.looseObject({
    id: hexId(20),
    definition_id: z.string(),
    name: z.string(),
    start: z.int(),
    end: z.int(),
    created_at: seconds(),
    status: z.string(),
    progress: z.number().min(0).max(100),
    sources: z.array(z.string()),
    sample: z.number(),
    estimated_completion: seconds(),
    dpus: z.number().min(0),
  });
export const HistoricsQuery = variants((withDeliveryCount: boolean) =>
  (withDeliveryCount ? HistoricsQueryFields.extend({ delivery_count: count() }) : HistoricsQueryFields).meta({ id: withDeliveryCount ? 'HistoricsQueryWithDeliveryCount' : 'HistoricsQuery' }),
);
export const historicsAnswers = {
  prepared: z.looseObject({ id: hexId(20), dpus: z.number().min(0), availability: Availability }),
  get: (withDeliveryCount: boolean) => z.union([HistoricsQuery(withDeliveryCount), z.looseObject({ data: z.array(HistoricsQuery(withDeliveryCount)), count: count() })]),
  status: z.array(Availability),
};

// Preview -------------------------------------------------------------------------------------------
export const Preview = z.looseObject({
  id: hexId(40),
  name: z.literal('preview'),
  progress: z.number().min(0).max(100),
  status: z.string(),
  feeds: z.string(),
  sample: z.number(),
  start: z.int(),
  end: z.int(),
  created_at: seconds(),
  user: z.string(),
  parameters: z.string(),
  hash: z.string(),
  data: z.array(z.looseObject({ analysis: z.string(), output: z.unknown() })).optional(),
}).meta({ id: 'Preview' });
export const previewAnswers = { created: z.looseObject({ id: hexId(40), created_at: seconds() }), get: Preview };

// Managed sources -----------------------------------------------------------------------------------
export const ManagedSource = z
  .looseObject({
    id: hexId(32),
    status: z.string(),
    source_type: z.string(),
    name: z.string(),
    parameters: z.union([z.tuple([]), z.record(z.string(), z.unknown())]),
    auth: z.array(z.looseObject({ identity_id: hexId(32), expires_at: seconds().nullable(), parameters: z.record(z.string(), z.unknown()) })),
    resources: z.array(z.looseObject({ resource_id: hexId(32), parameters: z.record(z.string(), z.unknown()) })),
    created_at: seconds(),
  })
  .meta({ id: 'ManagedSource' });
export const sourceAnswers = {
  get: z.union([ManagedSource, page('sources', ManagedSource)]),
  log: page('log_entries', z.looseObject({ id: z.int(), event_time: seconds(), success: z.boolean(), message: z.string() })),
  categories: z.looseObject({ count: count(), categories: z.array(z.looseObject({ source_type: z.string(), name: z.string(), category: z.string() })) }),
  ingested: z.looseObject({ accepted: count(), total_message_bytes: count() }),
};

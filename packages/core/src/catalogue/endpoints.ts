import type { VersionId } from './versions.ts';

/**
 * The catalogue: the only list of endpoints. Routing, costs, allowances, accepted methods and the docs
 * all read this table. Success codes and costs are the seed's (§4); methods are what real clients send
 * (docs/clients.md#methods-per-endpoint); where the seed shows no success code, the recorded one is used and noted.
 */
export type Group = 'tasks' | 'insight' | 'account' | 'core' | 'push' | 'historics' | 'preview' | 'sources' | 'ingestion' | 'stream';
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/**
 * Which allowance a call draws from (docs/contract.md#hourly-allowances). `task-slots`: charged nothing,
 * governed by the queue. `reports-general`: draws nothing and opens no window, and reports the general
 * allowance (a stream connection's open: its subscriptions are what is charged).
 */
export type AllowanceKind = 'general' | 'analyze' | 'task-slots' | 'reports-general' | 'none';

export interface PathForm {
  /** A template: literal segments, `{name}` parameters, `{name=a|b}` parameters limited to those words. */
  template: string;
  /** First version that serves this form. */
  from: VersionId;
}

/** Every endpoint's id, from the catalogue below: a misspelt id does not compile. */
export type EndpointId = (typeof TABLE)[number]['id'];

export interface Endpoint<Id extends string = EndpointId> {
  id: Id;
  group: Group;
  /** The path as the seed writes it. */
  path: string;
  methods: Method[];
  /** The usual success code first; a second one where both occur. */
  success: number[];
  cost: number;
  allowance: AllowanceKind;
  forms: PathForm[];
  /**
   * How the request body reaches the handler: read as parameters (a JSON object or a form, merged with
   * the query and path), or passed on as it is (`raw`: ingestion's newline-delimited JSON).
   */
  body: 'params' | 'raw';
  /** Where the row comes from: the seed's §4 tables, or added by this project (see `note`). */
  source: 'seed' | 'project';
  /** Why a success code or method was chosen where the seed is silent. */
  note?: string;
  /**
   * Not part of the REST surface: no path, no route, no OpenAPI entry (`ENDPOINTS` leaves it out). The
   * stream's actions are such endpoints: its transports call them through `Engine.call`, so a stream is
   * judged, charged and laned where a REST call is.
   */
  internal?: true;
  /**
   * Who may make the call. `key` (the default): credentials, authenticated at step 4, refused for a denied
   * account at step 5. `connection`: an action of a stream connection the judge admitted earlier (its open
   * was authenticated); the call names the account and the connection (`ApiCall.connection`) and is not
   * refused for a denied account or a replaced key, so a connection can always be closed and its
   * deliveries recorded. `operator`: the operator acting on an account (`ApiCall.operator`), who holds
   * no key of it; the account must exist, and the call is not refused for a denied account (the operator
   * denied it, and decides what it is charged).
   */
  caller: 'key' | 'connection' | 'operator';
  /**
   * When the cost is charged. `always` (the default): at step 6, kept whatever step 7 answers.
   * `on-effect`: at step 6, given back when the handler refuses or says it changed nothing (a stream
   * subscription is charged when it begins: a repeat or a refused hash costs nothing).
   */
  charged: 'always' | 'on-effect';
}

interface Row<Id extends string> {
  id: Id;
  path: string;
  methods: Method[];
  success: number | number[];
  cost: number;
  allowance?: AllowanceKind;
  forms?: PathForm[];
  body?: 'raw';
  source?: 'seed' | 'project';
  note?: string;
  internal?: true;
  caller?: 'key' | 'connection' | 'operator';
  charged?: 'always' | 'on-effect';
}

const everywhere = (template: string): PathForm[] => [{ template, from: '1.0' }];

/** Insight endpoints: service-less in every version, service-scoped from 1.4 (docs/contract.md#versions). */
const insightForms = (action: string): PathForm[] => [
  { template: `/insight/${action}`, from: '1.0' },
  { template: `/insight/{service}/${action}`, from: '1.4' },
];

function group<const Id extends string>(name: Group, rows: Row<Id>[]): Endpoint<Id>[] {
  return rows.map((r) => ({
    id: r.id,
    group: name,
    path: r.path,
    methods: r.methods,
    success: Array.isArray(r.success) ? r.success : [r.success],
    cost: r.cost,
    allowance: r.allowance ?? 'general',
    forms: r.forms ?? everywhere(r.path),
    body: r.body ?? 'params',
    source: r.source ?? 'seed',
    ...(r.note ? { note: r.note } : {}),
    ...(r.internal ? { internal: true as const, forms: [] } : {}),
    caller: r.caller ?? 'key',
    charged: r.charged ?? 'always',
  }));
}

const TASK_TYPE = '{type=analysis|strategy}';

const TABLE = [
  ...group('tasks', [
    {
      id: 'tasks.list',
      path: '/insight/{service}/task',
      methods: ['GET'],
      success: 200,
      cost: 5,
      forms: [
        { template: '/insight/{service}/task', from: '1.0' },
        { template: `/insight/{service}/task/${TASK_TYPE}`, from: '1.5' },
      ],
    },
    {
      id: 'tasks.get',
      path: '/insight/{service}/task/{id}',
      methods: ['GET'],
      success: 200,
      cost: 5,
      forms: [
        { template: '/insight/{service}/task/{id}', from: '1.0' },
        { template: `/insight/{service}/task/${TASK_TYPE}/{id}`, from: '1.5' },
      ],
    },
    {
      id: 'tasks.create',
      path: '/insight/{service}/task',
      methods: ['POST'],
      success: 202,
      cost: 5,
      allowance: 'task-slots',
    },
  ]),
  ...group('insight', [
    { id: 'insight.analyze', path: '/insight/analyze', methods: ['POST'], success: 200, cost: 25, allowance: 'analyze', forms: insightForms('analyze') },
    { id: 'insight.validate', path: '/insight/validate', methods: ['POST'], success: 200, cost: 5, forms: insightForms('validate') },
    { id: 'insight.sample', path: '/insight/sample', methods: ['GET', 'POST'], success: 200, cost: 25, forms: insightForms('sample') },
    { id: 'insight.start', path: '/insight/start', methods: ['POST', 'PUT'], success: 200, cost: 25, forms: insightForms('start') },
    { id: 'insight.compile', path: '/insight/compile', methods: ['POST'], success: 200, cost: 5, forms: insightForms('compile') },
    { id: 'insight.get', path: '/insight/get', methods: ['GET'], success: 200, cost: 25, forms: insightForms('get') },
    { id: 'insight.stop', path: '/insight/stop', methods: ['POST', 'PUT'], success: 204, cost: 5, forms: insightForms('stop') },
    { id: 'insight.tags', path: '/insight/tags', methods: ['GET'], success: 200, cost: 25, forms: insightForms('tags') },
    { id: 'insight.update', path: '/insight/update', methods: ['PUT', 'POST'], success: 204, cost: 25, forms: insightForms('update') },
    {
      id: 'insight.reference.list',
      path: '/insight/{service}/reference',
      methods: ['GET'],
      success: 200,
      cost: 5,
      forms: [{ template: '/insight/{service}/reference', from: '1.5' }],
      source: 'project',
      note: 'Not in the seed; the original served it from 1.5 and two clients call it (docs/clients.md#reference-data, recorded cost 5). Adding it is not breaking (docs/contract.md#versions), so no version changes.',
    },
    {
      id: 'insight.reference.get',
      path: '/insight/{service}/reference/{slug}',
      methods: ['GET'],
      success: 200,
      cost: 5,
      forms: [{ template: '/insight/{service}/reference/{slug}', from: '1.5' }],
      source: 'project',
      note: 'As insight.reference.list: one reference set by its slug (docs/clients.md#reference-data, recorded cost 5).',
    },
  ]),
  ...group('account', [
    { id: 'account.identity.list', path: '/account/identity', methods: ['GET'], success: 200, cost: 5 },
    { id: 'account.identity.create', path: '/account/identity', methods: ['POST'], success: 201, cost: 5 },
    { id: 'account.identity.get', path: '/account/identity/{id}', methods: ['GET'], success: 200, cost: 5 },
    { id: 'account.identity.update', path: '/account/identity/{id}', methods: ['PUT'], success: 200, cost: 5 },
    {
      id: 'account.identity.delete',
      path: '/account/identity/{id}',
      methods: ['DELETE'],
      success: 204,
      cost: 5,
      source: 'project',
      note: 'Every client sends it (docs/clients.md#methods-per-endpoint); docs/contract.md#states fixes 204, then 410. Cost as the other identity calls.',
    },
    { id: 'account.identity.limit.list', path: '/account/identity/limit/{service}', methods: ['GET'], success: 200, cost: 25 },
    { id: 'account.identity.token.list', path: '/account/identity/{identity_id}/token', methods: ['GET'], success: 200, cost: 5 },
    { id: 'account.identity.token.create', path: '/account/identity/{identity_id}/token', methods: ['POST'], success: 201, cost: 25 },
    { id: 'account.identity.token.get', path: '/account/identity/{identity_id}/token/{service}', methods: ['GET'], success: 200, cost: 5 },
    { id: 'account.identity.token.update', path: '/account/identity/{identity_id}/token/{service}', methods: ['PUT'], success: [200, 201], cost: 5 },
    { id: 'account.identity.token.delete', path: '/account/identity/{identity_id}/token/{service}', methods: ['DELETE'], success: 204, cost: 5 },
    { id: 'account.identity.limit.create', path: '/account/identity/{identity_id}/limit', methods: ['POST'], success: 201, cost: 25 },
    { id: 'account.identity.limit.get', path: '/account/identity/{identity_id}/limit/{service}', methods: ['GET'], success: 200, cost: 25 },
    { id: 'account.identity.limit.update', path: '/account/identity/{identity_id}/limit/{service}', methods: ['PUT'], success: [200, 201], cost: 25 },
    { id: 'account.identity.limit.delete', path: '/account/identity/{identity_id}/limit/{service}', methods: ['DELETE'], success: 204, cost: 25 },
    { id: 'account.usage', path: '/account/usage', methods: ['GET'], success: 200, cost: 5 },
  ]),
  ...group('core', [
    { id: 'core.validate', path: '/validate', methods: ['POST'], success: 200, cost: 5 },
    { id: 'core.compile', path: '/compile', methods: ['POST'], success: 200, cost: 5 },
    { id: 'core.usage', path: '/usage', methods: ['GET', 'POST'], success: 200, cost: 25 },
    { id: 'core.dpu', path: '/dpu', methods: ['GET', 'POST'], success: 200, cost: 5 },
    { id: 'core.balance', path: '/balance', methods: ['GET', 'POST'], success: 200, cost: 25 },
  ]),
  ...group('push', [
    { id: 'push.validate', path: '/push/validate', methods: ['POST'], success: 200, cost: 5 },
    { id: 'push.create', path: '/push/create', methods: ['POST'], success: 200, cost: 5 },
    { id: 'push.pause', path: '/push/pause', methods: ['POST', 'PUT'], success: 200, cost: 1 },
    { id: 'push.resume', path: '/push/resume', methods: ['POST', 'PUT'], success: 200, cost: 1 },
    { id: 'push.update', path: '/push/update', methods: ['POST', 'PUT'], success: 200, cost: 5 },
    { id: 'push.stop', path: '/push/stop', methods: ['POST', 'PUT'], success: 200, cost: 1 },
    { id: 'push.delete', path: '/push/delete', methods: ['POST', 'PUT', 'DELETE'], success: 204, cost: 1 },
    { id: 'push.log', path: '/push/log', methods: ['GET', 'POST'], success: 200, cost: 1 },
    { id: 'push.get', path: '/push/get', methods: ['GET', 'POST'], success: 200, cost: 1 },
    { id: 'push.pull', path: '/pull', methods: ['GET', 'POST'], success: 200, cost: 0 },
  ]),
  ...group('historics', [
    { id: 'historics.prepare', path: '/historics/prepare', methods: ['POST'], success: 200, cost: 25 },
    { id: 'historics.start', path: '/historics/start', methods: ['POST', 'PUT'], success: 204, cost: 25 },
    { id: 'historics.stop', path: '/historics/stop', methods: ['POST', 'PUT'], success: 204, cost: 5 },
    { id: 'historics.status', path: '/historics/status', methods: ['GET', 'POST'], success: 200, cost: 5 },
    { id: 'historics.update', path: '/historics/update', methods: ['POST', 'GET'], success: 204, cost: 5 },
    { id: 'historics.delete', path: '/historics/delete', methods: ['POST', 'DELETE'], success: 204, cost: 25 },
    { id: 'historics.get', path: '/historics/get', methods: ['GET', 'POST'], success: 200, cost: 25 },
    { id: 'historics.pause', path: '/historics/pause', methods: ['POST', 'PUT'], success: 204, cost: 5, note: 'Seed shows no success code; recorded traffic answers 204.' },
    { id: 'historics.resume', path: '/historics/resume', methods: ['POST', 'PUT'], success: 204, cost: 5, note: 'Seed shows no success code; recorded traffic answers 204.' },
  ]),
  ...group('preview', [
    { id: 'preview.create', path: '/preview/create', methods: ['POST'], success: 202, cost: 25 },
    { id: 'preview.get', path: '/preview/get', methods: ['GET', 'POST'], success: [202, 200], cost: 5, note: '202 until the preview has succeeded, then 200 with data (docs/contract.md#states).' },
  ]),
  ...group('sources', [
    { id: 'source.create', path: '/source/create', methods: ['POST', 'GET'], success: 201, cost: 25 },
    { id: 'source.stop', path: '/source/stop', methods: ['POST', 'PUT'], success: 200, cost: 5 },
    { id: 'source.start', path: '/source/start', methods: ['POST', 'PUT'], success: 200, cost: 5 },
    { id: 'source.update', path: '/source/update', methods: ['POST', 'GET'], success: 202, cost: 25 },
    { id: 'source.delete', path: '/source/delete', methods: ['POST', 'DELETE'], success: 204, cost: 25 },
    { id: 'source.get', path: '/source/get', methods: ['GET', 'POST'], success: 200, cost: 5 },
    { id: 'source.log', path: '/source/log', methods: ['GET', 'POST'], success: 200, cost: 5 },
    { id: 'source.auth.add', path: '/source/auth/add', methods: ['POST', 'PUT', 'GET'], success: 200, cost: 25, note: 'Seed shows no success code; recorded traffic answers 200.' },
    { id: 'source.auth.remove', path: '/source/auth/remove', methods: ['POST', 'PUT', 'GET'], success: 200, cost: 25, note: 'Seed shows no success code; recorded traffic answers 200.' },
    { id: 'source.resource.add', path: '/source/resource/add', methods: ['POST', 'PUT', 'GET'], success: 200, cost: 25, note: 'Seed shows no success code; recorded traffic answers 200.' },
    { id: 'source.resource.remove', path: '/source/resource/remove', methods: ['POST', 'PUT', 'GET'], success: 200, cost: 25, note: 'Seed shows no success code; recorded traffic answers 200.' },
    { id: 'source.category.get', path: '/source/category/get', methods: ['GET', 'POST'], success: 200, cost: 5, note: 'Seed shows no success code and no client records it; 200 as every other read.' },
  ]),
  ...group('ingestion', [
    {
      id: 'ingest',
      path: '/ingest/{source_id}',
      methods: ['POST'],
      success: 200,
      cost: 0,
      allowance: 'none',
      body: 'raw',
      source: 'project',
      note: 'docs/contract.md#fixed-names-of-the-server: ingestion for running managed sources, governed by the per-source per-minute limit.',
    },
  ]),
  // The stream's actions (docs/stream.md): internal, called by its transports (and the simulator's
  // consumers), or by the operator (its charge), through Engine.call, never routed from a path.
  ...group('stream', [
    {
      id: 'stream.open',
      path: '(stream) open a connection',
      methods: [],
      success: 200,
      cost: 0,
      allowance: 'reports-general',
      internal: true,
      source: 'project',
      note: 'Bounded by the package field stream_connections (open at once) and by opens an hour; draws nothing, and reports the general allowance with the cost it charged: 0.',
    },
    {
      id: 'stream.subscribe',
      path: '(stream) subscribe a connection to a hash',
      methods: [],
      success: 200,
      cost: 5,
      charged: 'on-effect',
      internal: true,
      source: 'project',
      note: 'Charged as /compile when the subscription begins (decisions: a repeat or a refusal costs nothing).',
    },
    { id: 'stream.unsubscribe', path: '(stream) unsubscribe', methods: [], success: 200, cost: 0, allowance: 'none', caller: 'connection', internal: true, source: 'project' },
    { id: 'stream.deliveries', path: '(stream) record deliveries', methods: [], success: 200, cost: 0, allowance: 'none', caller: 'connection', internal: true, source: 'project' },
    { id: 'stream.close', path: '(stream) close a connection', methods: [], success: 200, cost: 0, allowance: 'none', caller: 'connection', internal: true, source: 'project' },
    {
      id: 'stream.charge',
      path: '(operator) charge the stream product',
      methods: [],
      success: 200,
      cost: 0,
      caller: 'operator',
      internal: true,
      source: 'project',
      note: "The operator's charge of stream usage injected by hand (POST /_admin/accounts/{u}/charge): the cost is the call's own (`cost`), drawn from the general allowance.",
    },
  ]),
];

/** Every endpoint the engine judges: the REST surface and the stream's internal actions. */
export const ALL_ENDPOINTS: readonly Endpoint[] = TABLE;

/** The REST surface: what is routed, documented and listed (internal endpoints left out). */
export const ENDPOINTS: readonly Endpoint[] = ALL_ENDPOINTS.filter((e) => !e.internal);

const BY_ID = new Map<string, Endpoint>(ALL_ENDPOINTS.map((e) => [e.id, e]));

/** For ids read at run time (scenario files, the wire): true when the catalogue has it. */
export function isEndpointId(id: string): id is EndpointId {
  return BY_ID.has(id);
}

export function endpointById(id: string): Endpoint {
  const e = BY_ID.get(id);
  if (!e) throw new Error(`no endpoint ${id} in the catalogue`);
  return e;
}

import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, NotFound, PayloadTooLarge, illegalTransition } from '../calls/errors.ts';
import { ingestionRefusal, ingestionWindowAt, type IngestionLimits, type IngestionWindow } from './ingestion-limit.ts';
import { checkStoredJson, own } from '../calls/input-limits.ts';
import { checkHolding } from '../accounting/holding-limits.ts';

/** The states of docs/contract.md#states; a `deleted` source answers 404 to every call. */
export type SourceStatus = 'stopped' | 'running' | 'deleted';

export interface SourceAuth {
  identity_id: string;
  expires_at: number | null;
  parameters: Record<string, unknown>;
}

export interface SourceResource {
  resource_id: string;
  parameters: Record<string, unknown>;
}

export interface SourceLogEntry {
  id: number;
  at: number;
  success: boolean;
  message: string;
}

/** What a caller gives a source when it creates it (and what the source then holds of it). */
export interface SourceSettings {
  id: string;
  source_type: string;
  name: string;
  parameters: Record<string, unknown>;
  resources: SourceResource[];
  auth: SourceAuth[];
}

export interface ManagedSource extends SourceSettings {
  status: SourceStatus;
  created_at: number;
  log: SourceLogEntry[];
  ingestion: IngestionWindow | null;
  /** Interactions accepted by ingestion, ever. */
  ingested: number;
}

export interface SourcesState {
  sources: Record<string, ManagedSource>;
  order: string[];
  /** Log entry ids are numbers, unique per account. */
  logSeq: number;
}

export interface SourceChanges {
  source_type?: string | undefined;
  name?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
  resources?: SourceResource[] | undefined;
  auth?: SourceAuth[] | undefined;
}

export type SourceEvent =
  | DomainEvent<'ManagedSourceCreated', { id: string; source_type: string; name: string; parameters: Record<string, unknown>; resources: SourceResource[]; auth: SourceAuth[]; at: number }>
  | DomainEvent<'ManagedSourceStarted', { id: string; at: number }>
  | DomainEvent<'ManagedSourceStopped', { id: string; at: number }>
  | DomainEvent<'ManagedSourceUpdated', SourceChanges & { id: string; at: number }>
  | DomainEvent<'ManagedSourceDeleted', { id: string; at: number }>
  | DomainEvent<'SourceAuthAdded', { id: string; at: number; auth: SourceAuth[] }>
  | DomainEvent<'SourceAuthRemoved', { id: string; at: number; auth_ids: string[] }>
  | DomainEvent<'SourceResourcesAdded', { id: string; at: number; resources: SourceResource[] }>
  | DomainEvent<'SourceResourcesRemoved', { id: string; at: number; resource_ids: string[] }>
  | DomainEvent<'IngestionAdmitted', { id: string; at: number; window: number; bytes: number; accepted: number }>;

export type SourceCommand =
  | (SourceSettings & {
      type: 'CreateSource';
      at: number;
      /** The package's `managed_sources`: sources not deleted that the account may hold. */
      holdLimit: number;
    })
  | { type: 'StartSource'; id: string; at: number }
  | { type: 'StopSource'; id: string; at: number }
  | { type: 'UpdateSource'; id: string; at: number; changes: SourceChanges }
  | { type: 'DeleteSource'; id: string; at: number }
  | { type: 'AddSourceAuth'; id: string; at: number; auth: SourceAuth[] }
  | { type: 'RemoveSourceAuth'; id: string; at: number; auth_ids: string[] }
  | { type: 'AddSourceResources'; id: string; at: number; resources: SourceResource[] }
  | { type: 'RemoveSourceResources'; id: string; at: number; resource_ids: string[] }
  | { type: 'Ingest'; id: string; at: number; bytes: number; accepted: number; limits: IngestionLimits };

export const sourcesStream = (username: string): string => `sources:${username}`;

type Action = 'start' | 'stop' | 'update' | 'delete' | 'change auth of' | 'change resources of' | 'ingest into';

/** Which commands each status allows; anything else answers 409 naming both (docs/contract.md#states). */
export const SOURCE_TRANSITIONS: Record<Action, SourceStatus[]> = {
  start: ['stopped'],
  stop: ['running'],
  update: ['stopped', 'running'],
  delete: ['stopped', 'running'],
  'change auth of': ['stopped', 'running'],
  'change resources of': ['stopped', 'running'],
  'ingest into': ['running'],
};

/** The message ingestion answers for a source it does not know (docs/clients.md#error-bodies). */
export const UNKNOWN_SOURCE = 'Unknown user source';

/** What `/source/delete` answers for a source it does not know (docs/clients.md#error-bodies). */
export const SOURCE_NOT_FOUND_ON_DELETE = 'Source instance not found';

/** The source `id` names; a deleted or unknown one is a 404 to every call, worded as the service did. */
export function liveSource(state: SourcesState, id: string, message = `Could not find the specified source instance "${id}"`): ManagedSource {
  const source = own(state.sources, id);
  if (!source || source.status === 'deleted') throw new NotFound(message);
  return source;
}

function allow(action: Action, source: ManagedSource): void {
  if (!SOURCE_TRANSITIONS[action].includes(source.status)) throw illegalTransition('managed source', action, source.status);
}

export const sourcesDecider: Decider<SourcesState, SourceCommand, SourceEvent> = {
  name: 'sources.v1',
  initialState: () => ({ sources: {}, order: [], logSeq: 0 }),
  decide(command, state) {
    const { id, at } = command;
    if (command.type === 'CreateSource') {
      if (own(state.sources, id)) throw new BadRequest(`A managed source with id ${id} already exists`);
      checkHolding('managed_sources', state.order.length, command.holdLimit);
      checkSettings(command);
      const { type: _t, holdLimit: _l, ...data } = command;
      return [{ type: 'ManagedSourceCreated', data }];
    }
    const source = liveSource(state, id, command.type === 'Ingest' ? UNKNOWN_SOURCE : command.type === 'DeleteSource' ? SOURCE_NOT_FOUND_ON_DELETE : undefined);
    switch (command.type) {
      case 'StartSource':
        allow('start', source);
        return [{ type: 'ManagedSourceStarted', data: { id, at } }];
      case 'StopSource':
        allow('stop', source);
        return [{ type: 'ManagedSourceStopped', data: { id, at } }];
      case 'UpdateSource':
        allow('update', source);
        if (Object.keys(defined(command.changes)).length === 0) throw new BadRequest('Nothing to update: give name, parameters, resources or auth');
        checkSettings(command.changes);
        return [{ type: 'ManagedSourceUpdated', data: { id, at, ...defined(command.changes) } }];
      case 'DeleteSource':
        allow('delete', source);
        return [{ type: 'ManagedSourceDeleted', data: { id, at } }];
      case 'AddSourceAuth':
        allow('change auth of', source);
        if (command.auth.length === 0) throw new BadRequest("Missing param 'auth'");
        checkSettings({ auth: [...source.auth, ...command.auth] });
        return [{ type: 'SourceAuthAdded', data: { id, at, auth: command.auth } }];
      case 'RemoveSourceAuth': {
        allow('change auth of', source);
        const unknown = command.auth_ids.filter((a) => !source.auth.some((x) => x.identity_id === a));
        if (unknown.length > 0) throw new BadRequest(`auth_ids not on this source: ${unknown.join(', ')}`);
        return [{ type: 'SourceAuthRemoved', data: { id, at, auth_ids: command.auth_ids } }];
      }
      case 'AddSourceResources':
        allow('change resources of', source);
        if (command.resources.length === 0) throw new BadRequest("Missing param 'resources'");
        checkSettings({ resources: [...source.resources, ...command.resources] });
        return [{ type: 'SourceResourcesAdded', data: { id, at, resources: command.resources } }];
      case 'RemoveSourceResources': {
        allow('change resources of', source);
        const unknown = command.resource_ids.filter((r) => !source.resources.some((x) => x.resource_id === r));
        if (unknown.length > 0) throw new BadRequest(`resource_ids not on this source: ${unknown.join(', ')}`);
        return [{ type: 'SourceResourcesRemoved', data: { id, at, resource_ids: command.resource_ids } }];
      }
      case 'Ingest': {
        allow('ingest into', source);
        const window = ingestionWindowAt(source.ingestion, at);
        const refusal = ingestionRefusal(window, command.limits, command.bytes);
        if (refusal) throw new PayloadTooLarge(refusal);
        return [{ type: 'IngestionAdmitted', data: { id, at, window: window.start, bytes: command.bytes, accepted: command.accepted } }];
      }
    }
  },
  evolve: evolveWith<SourcesState, SourceEvent>({
    ManagedSourceCreated(draft, e) {
      draft.sources[e.id] = {
        id: e.id,
        source_type: e.source_type,
        name: e.name,
        parameters: e.parameters,
        resources: e.resources,
        auth: e.auth,
        status: 'stopped',
        created_at: e.at,
        log: [],
        ingestion: null,
        ingested: 0,
      };
      draft.order.push(e.id);
      note(draft, e.id, e.at, 'The source was created');
    },
    ManagedSourceStarted(draft, e) {
      draft.sources[e.id]!.status = 'running';
      note(draft, e.id, e.at, 'The source was started');
    },
    ManagedSourceStopped(draft, e) {
      draft.sources[e.id]!.status = 'stopped';
      note(draft, e.id, e.at, 'The source was stopped');
    },
    ManagedSourceUpdated(draft, e) {
      const s = draft.sources[e.id]!;
      if (e.source_type !== undefined) s.source_type = e.source_type;
      if (e.name !== undefined) s.name = e.name;
      if (e.parameters !== undefined) s.parameters = e.parameters;
      if (e.resources !== undefined) s.resources = e.resources;
      if (e.auth !== undefined) s.auth = e.auth;
      note(draft, e.id, e.at, 'The source was updated');
    },
    ManagedSourceDeleted(draft, e) {
      const s = draft.sources[e.id]!;
      s.status = 'deleted';
      s.log = [];
      s.auth = [];
      s.resources = [];
      draft.order = draft.order.filter((i) => i !== e.id);
    },
    SourceAuthAdded(draft, e) {
      draft.sources[e.id]!.auth.push(...e.auth);
      note(draft, e.id, e.at, `${e.auth.length} auth ${e.auth.length === 1 ? 'entry' : 'entries'} added`);
    },
    SourceAuthRemoved(draft, e) {
      const s = draft.sources[e.id]!;
      s.auth = s.auth.filter((a) => !e.auth_ids.includes(a.identity_id));
      note(draft, e.id, e.at, `${e.auth_ids.length} auth ${e.auth_ids.length === 1 ? 'entry' : 'entries'} removed`);
    },
    SourceResourcesAdded(draft, e) {
      draft.sources[e.id]!.resources.push(...e.resources);
      note(draft, e.id, e.at, `${e.resources.length} ${e.resources.length === 1 ? 'resource' : 'resources'} added`);
    },
    SourceResourcesRemoved(draft, e) {
      const s = draft.sources[e.id]!;
      s.resources = s.resources.filter((r) => !e.resource_ids.includes(r.resource_id));
      note(draft, e.id, e.at, `${e.resource_ids.length} ${e.resource_ids.length === 1 ? 'resource' : 'resources'} removed`);
    },
    IngestionAdmitted(draft, e) {
      const s = draft.sources[e.id]!;
      const w = s.ingestion && s.ingestion.start === e.window ? s.ingestion : { start: e.window, requests: 0, bytes: 0 };
      s.ingestion = { start: w.start, requests: w.requests + 1, bytes: w.bytes + e.bytes };
      s.ingested += e.accepted;
    },
  }),
};

/** Log entries a source keeps: its latest ones, so a source changed for years holds a bounded log. */
export const SOURCE_LOG_KEPT = 1000;

function note(draft: SourcesState, id: string, at: number, message: string): void {
  draft.logSeq += 1;
  const log = draft.sources[id]!.log;
  log.push({ id: draft.logSeq, at, success: true, message });
  if (log.length > SOURCE_LOG_KEPT) log.splice(0, log.length - SOURCE_LOG_KEPT);
}

/** What a source stores of the caller's settings, each as it will stand after the change, within the stored-JSON bound. */
function checkSettings(s: { name?: string | undefined; parameters?: unknown; resources?: unknown; auth?: unknown }): void {
  if (s.name !== undefined && s.name.length > SOURCE_NAME_MAX) throw new BadRequest(`name must be at most ${SOURCE_NAME_MAX} characters`);
  if (s.parameters !== undefined) checkStoredJson('parameters', s.parameters);
  if (s.resources !== undefined) checkStoredJson('resources', s.resources);
  if (s.auth !== undefined) checkStoredJson('auth', s.auth);
}

export const SOURCE_NAME_MAX = 255;

function defined(changes: SourceChanges): SourceChanges {
  const out: SourceChanges = {};
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

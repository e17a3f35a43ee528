import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { sourcesDecider, type SourceCommand, type SourceEvent } from './managed-source.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const ID = 'a'.repeat(32);
const LIMITS = { requestsPerMinute: 3, bytesPerMinute: 100 };
const spec = () => deciderSpec(sourcesDecider);

const auth = [{ identity_id: 'c'.repeat(32), expires_at: null, parameters: { value: 'token' } }];
const resources = [{ resource_id: 'd'.repeat(32), parameters: { id: '123' } }];
const created: SourceEvent = {
  type: 'ManagedSourceCreated',
  data: { id: ID, source_type: 'facebook_page', name: 'page', parameters: {}, resources, auth, at: T0 },
};
const started: SourceEvent = { type: 'ManagedSourceStarted', data: { id: ID, at: T0 + 1 } };
const stopped: SourceEvent = { type: 'ManagedSourceStopped', data: { id: ID, at: T0 + 2 } };
const deleted: SourceEvent = { type: 'ManagedSourceDeleted', data: { id: ID, at: T0 + 3 } };
const at = T0 + 10;

describe('managed source: given / when / then', () => {
  it('create: a new source is stopped', () => {
    const state = spec().given([]).when({ type: 'CreateSource', ...(created.data as object), holdLimit: 1000 } as SourceCommand).then([created]);
    expect(state.sources[ID]).toMatchObject({ status: 'stopped', log: [{ message: 'The source was created' }] });
  });
  it('create refuses an id already taken', () => {
    spec().given([created]).when({ type: 'CreateSource', ...(created.data as object), holdLimit: 1000 } as SourceCommand).thenThrows(400);
  });
  it('start: stopped → running; stop: running → stopped', () => {
    expect(spec().given([created]).when({ type: 'StartSource', id: ID, at }).then([{ type: 'ManagedSourceStarted', data: { id: ID, at } }]).sources[ID]!.status).toBe('running');
    expect(spec().given([created, started]).when({ type: 'StopSource', id: ID, at }).then([{ type: 'ManagedSourceStopped', data: { id: ID, at } }]).sources[ID]!.status).toBe('stopped');
  });
  it('update, auth and resource changes keep the status', () => {
    for (const given of [[created], [created, started]]) {
      const status = given.length === 1 ? 'stopped' : 'running';
      const s1 = spec().given(given).when({ type: 'UpdateSource', id: ID, at, changes: { name: 'renamed' } }).then([{ type: 'ManagedSourceUpdated', data: { id: ID, at, name: 'renamed' } }]);
      expect(s1.sources[ID]).toMatchObject({ status, name: 'renamed' });
      const more = [{ identity_id: 'e'.repeat(32), expires_at: null, parameters: { value: 't2' } }];
      const s2 = spec().given(given).when({ type: 'AddSourceAuth', id: ID, at, auth: more }).then([{ type: 'SourceAuthAdded', data: { id: ID, at, auth: more } }]);
      expect(s2.sources[ID]!.auth).toHaveLength(2);
      expect(s2.sources[ID]!.status).toBe(status);
      const s3 = spec().given(given).when({ type: 'RemoveSourceAuth', id: ID, at, auth_ids: ['c'.repeat(32)] }).then([{ type: 'SourceAuthRemoved', data: { id: ID, at, auth_ids: ['c'.repeat(32)] } }]);
      expect(s3.sources[ID]!.auth).toHaveLength(0);
      const r = [{ resource_id: 'f'.repeat(32), parameters: { id: '456' } }];
      const s4 = spec().given(given).when({ type: 'AddSourceResources', id: ID, at, resources: r }).then([{ type: 'SourceResourcesAdded', data: { id: ID, at, resources: r } }]);
      expect(s4.sources[ID]!.resources).toHaveLength(2);
      const s5 = spec().given(given).when({ type: 'RemoveSourceResources', id: ID, at, resource_ids: ['d'.repeat(32)] }).then([{ type: 'SourceResourcesRemoved', data: { id: ID, at, resource_ids: ['d'.repeat(32)] } }]);
      expect(s5.sources[ID]).toMatchObject({ status, resources: [] });
    }
  });
  it('removing auth or resources the source does not have is a 400 naming them', () => {
    spec().given([created]).when({ type: 'RemoveSourceAuth', id: ID, at, auth_ids: ['9'.repeat(32)] }).thenThrows(400, /9{32}/);
    spec().given([created]).when({ type: 'RemoveSourceResources', id: ID, at, resource_ids: ['nope'] }).thenThrows(400, /nope/);
  });
  it('delete from stopped or running, then 404 for everything, and ingestion says Unknown user source', () => {
    for (const given of [[created], [created, started]]) {
      spec().given(given).when({ type: 'DeleteSource', id: ID, at }).then([{ type: 'ManagedSourceDeleted', data: { id: ID, at } }]);
    }
    const gone = [created, started, deleted];
    for (const type of ['StartSource', 'StopSource', 'DeleteSource'] as const) spec().given(gone).when({ type, id: ID, at }).thenThrows(404);
    spec().given(gone).when({ type: 'UpdateSource', id: ID, at, changes: { name: 'x' } }).thenThrows(404);
    spec().given(gone).when({ type: 'Ingest', id: ID, at, bytes: 1, accepted: 1, limits: LIMITS }).thenThrows(404, /^Unknown user source$/);
    spec().given([]).when({ type: 'Ingest', id: ID, at, bytes: 1, accepted: 1, limits: LIMITS }).thenThrows(404, /^Unknown user source$/);
    spec().given([]).when({ type: 'StartSource', id: ID, at }).thenThrows(404, /Could not find the specified source instance/);
  });
  it('delete of an unknown or deleted source answers 404 in the recorded words of /source/delete', () => {
    spec().given([]).when({ type: 'DeleteSource', id: ID, at }).thenThrows(404, /^Source instance not found$/);
    spec().given([created, deleted]).when({ type: 'DeleteSource', id: ID, at }).thenThrows(404, /^Source instance not found$/);
  });
  it('409 for a transition not allowed, naming both', () => {
    spec().given([created, started]).when({ type: 'StartSource', id: ID, at }).thenThrows(409, /start.*running/);
    spec().given([created]).when({ type: 'StopSource', id: ID, at }).thenThrows(409, /stop.*stopped/);
    spec().given([created, started, stopped]).when({ type: 'StopSource', id: ID, at }).thenThrows(409, /stop.*stopped/);
    spec().given([created]).when({ type: 'Ingest', id: ID, at, bytes: 1, accepted: 1, limits: LIMITS }).thenThrows(409, /ingest into.*stopped/);
  });
  it('ingest: admitted while the minute has room, 413 once it has not, room again the next minute', () => {
    const minute = Math.floor(T0 / 60_000) * 60_000 + 60_000;
    const admitted = (t: number, bytes: number): SourceEvent => ({ type: 'IngestionAdmitted', data: { id: ID, at: t, window: Math.floor(t / 60_000) * 60_000, bytes, accepted: 1 } });
    const ingest = (t: number, bytes: number): SourceCommand => ({ type: 'Ingest', id: ID, at: t, bytes, accepted: 1, limits: LIMITS });
    spec().given([created, started]).when(ingest(minute, 40)).then([admitted(minute, 40)]);
    spec().given([created, started, admitted(minute, 40), admitted(minute + 1, 40)]).when(ingest(minute + 2, 21)).thenThrows(413, /100 bytes a minute/);
    spec().given([created, started, admitted(minute, 1), admitted(minute + 1, 1), admitted(minute + 2, 1)]).when(ingest(minute + 3, 1)).thenThrows(413, /3 requests a minute/);
    spec().given([created, started, admitted(minute, 1), admitted(minute + 1, 1), admitted(minute + 2, 1)]).when(ingest(minute + 60_000, 1)).then([admitted(minute + 60_000, 1)]);
  });
});

describe('managed source: what one account can make it hold', () => {
  const create = (over: Record<string, unknown> = {}) => ({ type: 'CreateSource', ...(created.data as object), holdLimit: 1000, ...over }) as SourceCommand;
  const other = (id: string): SourceEvent => ({ ...created, data: { ...created.data, id } }) as SourceEvent;
  it('create refuses a source past the package\'s managed_sources (403 naming the field); a deleted one no longer counts', () => {
    spec().given([other('e'.repeat(32)), other('f'.repeat(32))]).when(create({ holdLimit: 2 })).thenThrows(403, /allows 2 managed sources \(managed_sources\)/);
    spec().given([other('e'.repeat(32)), other('f'.repeat(32)), { type: 'ManagedSourceDeleted', data: { id: 'e'.repeat(32), at: T0 } }]).when(create({ holdLimit: 2 })).then([created]);
  });
  it('parameters, resources and auth over 32 KiB of JSON are refused at create and update, naming the setting', () => {
    spec().given([]).when(create({ parameters: { x: 'x'.repeat(33_000) } })).thenThrows(400, /parameters is over the limit of 32768 characters/);
    spec().given([created]).when({ type: 'UpdateSource', id: ID, at, changes: { resources: [{ resource_id: 'r', parameters: { x: 'x'.repeat(33_000) } }] } }).thenThrows(400, /resources is over the limit/);
  });
  it('adding auth or resources a little at a time cannot grow them past the bound', () => {
    const chunk = [{ identity_id: 'c'.repeat(32), expires_at: null, parameters: { value: 't'.repeat(20_000) } }];
    const added: SourceEvent = { type: 'SourceAuthAdded', data: { id: ID, at, auth: chunk } };
    spec().given([created, added]).when({ type: 'AddSourceAuth', id: ID, at, auth: chunk }).thenThrows(400, /auth is over the limit/);
    const res = [{ resource_id: 'd'.repeat(32), parameters: { id: 'i'.repeat(20_000) } }];
    spec().given([created, { type: 'SourceResourcesAdded', data: { id: ID, at, resources: res } }]).when({ type: 'AddSourceResources', id: ID, at, resources: res }).thenThrows(400, /resources is over the limit/);
  });
  it('a source keeps its latest SOURCE_LOG_KEPT log entries, however often it is changed', () => {
    const updates: SourceEvent[] = Array.from({ length: 1500 }, (_, i) => ({ type: 'ManagedSourceUpdated', data: { id: ID, at: at + i, name: `n${i}` } }));
    const folded = updates.reduce((s, e) => sourcesDecider.evolve(s, e), sourcesDecider.evolve(sourcesDecider.initialState(), created));
    expect(folded.sources[ID]!.log).toHaveLength(1000);
    expect(folded.sources[ID]!.log.at(-1)!.id).toBe(1501);
  });
});

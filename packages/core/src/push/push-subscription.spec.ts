import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { FINISHING_MS, pushDecider, statusAt, type PushEvent, type PushStatus } from './push-subscription.ts';
import { PUSH_LOG_KEPT } from './subscription-state.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const ID = 'a'.repeat(32);
const HASH = 'b'.repeat(32);
const spec = () => deciderSpec(pushDecider);

const created = (status: PushStatus = 'active', over: Partial<{ start: number; end: number | null }> = {}): PushEvent => ({
  type: 'PushSubscriptionCreated',
  data: { id: ID, name: 'sub', output_type: 'pull', output_params: {}, hash: HASH, hash_type: 'stream', status, at: T0, start: over.start ?? T0, end: over.end ?? null },
});
const changed = (status: PushStatus, at: number, end?: number): PushEvent => ({
  type: 'PushStatusChanged',
  data: { id: ID, status, at, ...(end !== undefined ? { end } : {}) },
});
const create = (over: Record<string, unknown> = {}) => ({
  type: 'CreatePush' as const,
  id: ID,
  name: 'sub',
  output_type: 'pull',
  output_params: {},
  hash: HASH,
  hash_type: 'stream' as const,
  at: T0,
  holdLimit: 1000,
  ...over,
});

describe('push subscription: given / when / then', () => {
  it('create answers an active subscription starting now', () => {
    spec().given([]).when(create()).then([created('active')]);
  });
  it('create with initial_status paused or waiting_for_start keeps it', () => {
    spec().given([]).when(create({ initial_status: 'paused' })).then([created('paused')]);
    spec().given([]).when(create({ initial_status: 'waiting_for_start', start: T0 + 1000 })).then([created('waiting_for_start', { start: T0 + 1000 })]);
  });
  it('create with a start in the future waits for it', () => {
    spec().given([]).when(create({ start: T0 + 5000 })).then([created('waiting_for_start', { start: T0 + 5000 })]);
  });
  it('create refuses an end before the start, and an initial status clients cannot ask for', () => {
    spec().given([]).when(create({ start: T0 + 5000, end: T0 + 1000 })).thenThrows(400, /end must be after start/);
    spec().given([]).when(create({ initial_status: 'finished' })).thenThrows(400, /initial_status/);
  });
  it('pause: active → paused', () => {
    spec().given([created()]).when({ type: 'PausePush', id: ID, at: T0 + 1 }).then([changed('paused', T0 + 1)]);
  });
  it('pause: waiting_for_start → paused', () => {
    spec().given([created('waiting_for_start', { start: T0 + 10_000 })]).when({ type: 'PausePush', id: ID, at: T0 + 1 }).then([changed('paused', T0 + 1)]);
  });
  it('resume: paused → active, or waiting_for_start before its start', () => {
    spec().given([created(), changed('paused', T0 + 1)]).when({ type: 'ResumePush', id: ID, at: T0 + 2 }).then([changed('active', T0 + 2)]);
    spec()
      .given([created('waiting_for_start', { start: T0 + 10_000 }), changed('paused', T0 + 1)])
      .when({ type: 'ResumePush', id: ID, at: T0 + 2 })
      .then([changed('waiting_for_start', T0 + 2)]);
  });
  it('stop: active, paused or waiting_for_start → finishing, with end set to the stop time', () => {
    for (const given of [[created()], [created(), changed('paused', T0 + 1)], [created('waiting_for_start', { start: T0 + 10_000 })]]) {
      spec().given(given).when({ type: 'StopPush', id: ID, at: T0 + 5 }).then([changed('finishing', T0 + 5, T0 + 5)]);
    }
  });
  it('finishing becomes finished FINISHING_MS after the stop, derived from time', () => {
    const state = spec().given([created()]).when({ type: 'StopPush', id: ID, at: T0 + 5 }).then([changed('finishing', T0 + 5, T0 + 5)]);
    const sub = state.subscriptions[ID]!;
    expect(statusAt(sub, T0 + 5 + FINISHING_MS - 1)).toBe('finishing');
    expect(statusAt(sub, T0 + 5 + FINISHING_MS)).toBe('finished');
  });
  it('a command on a subscription persists what time did first (waiting → active → finishing → finished)', () => {
    spec()
      .given([created('waiting_for_start', { start: T0 + 1000, end: T0 + 2000 })])
      .when({ type: 'ObservePush', id: ID, at: T0 + 2000 + FINISHING_MS })
      .then([changed('active', T0 + 1000), changed('finishing', T0 + 2000), changed('finished', T0 + 2000 + FINISHING_MS)]);
  });
  it('update keeps the status and changes name and output_params', () => {
    const state = spec()
      .given([created()])
      .when({ type: 'UpdatePush', id: ID, at: T0 + 1, name: 'renamed', output_params: { format: 'json_array' } })
      .then([{ type: 'PushSubscriptionUpdated', data: { id: ID, at: T0 + 1, name: 'renamed', output_params: { format: 'json_array' } } }]);
    expect(state.subscriptions[ID]).toMatchObject({ name: 'renamed', status: 'active', output_params: { format: 'json_array' } });
  });
  it('update with nothing to change is a 400', () => {
    spec().given([created()]).when({ type: 'UpdatePush', id: ID, at: T0 + 1 }).thenThrows(400);
  });
  it('delete from any status but deleted, then 404 for everything', () => {
    for (const given of [[created()], [created(), changed('paused', 1)], [created(), changed('finishing', T0, T0)]]) {
      spec().given(given).when({ type: 'DeletePush', id: ID, at: T0 + 1 }).then([{ type: 'PushSubscriptionDeleted', data: { id: ID, at: T0 + 1 } }]);
    }
    const deleted: PushEvent[] = [created(), { type: 'PushSubscriptionDeleted', data: { id: ID, at: T0 + 1 } }];
    for (const type of ['PausePush', 'ResumePush', 'StopPush', 'DeletePush', 'ObservePush'] as const) {
      spec().given(deleted).when({ type, id: ID, at: T0 + 2 }).thenThrows(404);
    }
  });
  it('any command on an unknown id is a 404', () => {
    spec().given([]).when({ type: 'PausePush', id: ID, at: T0 }).thenThrows(404, /not found/);
  });

  describe('409 for every transition not allowed, naming both', () => {
    const cases: [string, PushEvent[], 'PausePush' | 'ResumePush' | 'StopPush' | 'UpdatePush', RegExp][] = [
      ['pause a paused one', [created(), changed('paused', T0)], 'PausePush', /pause.*paused/],
      ['pause a finishing one', [created(), changed('finishing', T0, T0)], 'PausePush', /pause.*finishing/],
      ['resume an active one', [created()], 'ResumePush', /resume.*active/],
      ['resume a waiting one', [created('waiting_for_start', { start: T0 + 10_000 })], 'ResumePush', /resume.*waiting_for_start/],
      ['resume a finishing one', [created(), changed('finishing', T0, T0)], 'ResumePush', /resume.*finishing/],
      ['stop a finishing one', [created(), changed('finishing', T0, T0)], 'StopPush', /stop.*finishing/],
      ['stop a finished one', [created(), changed('finished', T0, T0)], 'StopPush', /stop.*finished/],
      ['update a finished one', [created(), changed('finished', T0, T0)], 'UpdatePush', /update.*finished/],
    ];
    for (const [name, given, type, message] of cases) {
      it(name, () => {
        spec().given(given).when({ type, id: ID, at: T0 + 1, name: 'x' }).thenThrows(409, message);
      });
    }
    it('a stop answered after the end has passed meets a finished subscription', () => {
      spec().given([created('active', { end: T0 + 1000 })]).when({ type: 'StopPush', id: ID, at: T0 + 1000 + FINISHING_MS }).thenThrows(409, /finished/);
    });
  });

  it('a pull page is recorded once: the same first position always ends at the same place', () => {
    const page: PushEvent = { type: 'PullPageServed', data: { id: ID, from: 0, to: 3, bytes: 30, at: T0 + 1 } };
    const state = spec().given([created()]).when({ type: 'ServePullPage', id: ID, from: 0, to: 3, bytes: 30, at: T0 + 1 }).then([page]);
    expect(state.subscriptions[ID]).toMatchObject({ acked: 3, delivered: 3, pages: { '0': { to: 3 } } });
    spec().given([created(), page]).when({ type: 'ServePullPage', id: ID, from: 0, to: 4, bytes: 40, at: T0 + 2 }).thenThrows(400, /already served/);
  });
});

describe('push subscription: what one account can make it hold', () => {
  const other = (id: string): PushEvent => ({ ...created(), data: { ...(created().data as object), id } } as PushEvent);
  it('create refuses a subscription past the package\'s push_subscriptions, naming the field (403)', () => {
    spec().given([other('c'.repeat(32)), other('d'.repeat(32))]).when(create({ holdLimit: 2 })).thenThrows(403, /allows 2 push subscriptions \(push_subscriptions\)/);
  });
  it('a deleted subscription no longer counts', () => {
    spec()
      .given([other('c'.repeat(32)), other('d'.repeat(32)), { type: 'PushSubscriptionDeleted', data: { id: 'c'.repeat(32), at: T0 } }])
      .when(create({ holdLimit: 2 }))
      .then([created('active')]);
  });
  it('output_params over 32 KiB of JSON are refused at create, naming the limit', () => {
    spec().given([]).when(create({ output_params: { blob: 'x'.repeat(32 * 1024) } })).thenThrows(400, /output_params is over the limit of 32768 characters/);
  });
  it('updates that each add a setting cannot grow the stored settings past the bound', () => {
    spec()
      .given([created()])
      .when({ type: 'UpdatePush', id: ID, at: T0 + 1, output_params: { a: 'x'.repeat(20_000), b: 'y'.repeat(20_000) } })
      .thenThrows(400, /output_params is over the limit/);
  });
});

describe('push subscription: its log', () => {
  it('keeps its latest PUSH_LOG_KEPT entries, however many changes it went through', () => {
    const updates: PushEvent[] = Array.from({ length: PUSH_LOG_KEPT + 50 }, (_, i) => ({ type: 'PushSubscriptionUpdated', data: { id: ID, at: T0 + i + 1, name: `n${i}` } }));
    const state = [created(), ...updates].reduce((s, e) => pushDecider.evolve(s, e), pushDecider.initialState());
    const log = state.subscriptions[ID]!.log;
    expect(log).toHaveLength(PUSH_LOG_KEPT);
    expect(log.at(-1)!.at).toBe(T0 + PUSH_LOG_KEPT + 50);
    expect(log[0]!.at).toBe(T0 + 51);
  });
});

describe('push subscription: a connector\'s finishes when drained', () => {
  const connectorCreated: PushEvent = { ...created(), data: { ...(created().data as object), output_type: 'http', connector: true } } as PushEvent;
  const stopped = changed('finishing', T0 + 1000, T0 + 1000);
  it('stays finishing past the minute after its end until its delivery finishes it; a pull subscription finishes by the clock', () => {
    const later = T0 + 1000 + FINISHING_MS + 120_000;
    const state = spec().given([connectorCreated, stopped]).when({ type: 'ObservePush', id: ID, at: later }).then([]);
    expect(statusAt(state.subscriptions[ID]!, later)).toBe('finishing');
    const pull = spec().given([created(), stopped]).when({ type: 'ObservePush', id: ID, at: later }).then([changed('finished', T0 + 1000 + FINISHING_MS)]);
    expect(pull.subscriptions[ID]!.status).toBe('finished');
  });
  it('FinishPush finishes it, not before the minute after its end; refused while a batch is on its way or when not finishing', () => {
    spec().given([connectorCreated, stopped]).when({ type: 'FinishPush', id: ID, at: T0 + 2000 }).then([changed('finished', T0 + 1000 + FINISHING_MS)]);
    spec().given([connectorCreated, stopped]).when({ type: 'FinishPush', id: ID, at: T0 + 500_000 }).then([changed('finished', T0 + 500_000)]);
    const opened: PushEvent = { type: 'PushBatchOpened', data: { id: ID, delivery_id: 'd'.repeat(32), from: 0, to: 1, bytes: 10, at: T0 + 1500 } };
    spec().given([connectorCreated, stopped, opened]).when({ type: 'FinishPush', id: ID, at: T0 + 500_000 }).thenThrows(409, /still has batch/);
    spec().given([connectorCreated]).when({ type: 'FinishPush', id: ID, at: T0 + 2000 }).thenThrows(409);
  });
});

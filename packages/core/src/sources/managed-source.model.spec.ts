import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { sourcesDecider, type SourceCommand, type SourceEvent, type SourcesState } from './managed-source.ts';

/**
 * The model: each source is absent, stopped, running or deleted; start needs stopped, stop and
 * ingestion need running, the changes and delete need it present. It knows nothing of auth ids or
 * windows beyond a count of requests in the current minute.
 */
type ModelStatus = 'stopped' | 'running' | 'deleted';
interface Model {
  now: number;
  status: Map<string, ModelStatus>;
  requests: Map<string, { minute: number; count: number }>;
  auth: Map<string, number>;
}
interface Real {
  state: SourcesState;
  log: SourceEvent[];
}

const IDS = ['a'.repeat(32), 'b'.repeat(32)];
const T0 = Date.parse('2026-03-01T10:00:00Z');
const LIMITS = { requestsPerMinute: 4, bytesPerMinute: 1_000_000 };

type Expect = { status?: ModelStatus; refused?: number };

function expectModel(m: Model, c: SourceCommand): Expect {
  const s = m.status.get(c.id);
  if (c.type === 'CreateSource') return s ? { refused: 400 } : { status: 'stopped' };
  if (!s || s === 'deleted') return { refused: 404 };
  switch (c.type) {
    case 'StartSource':
      return s === 'stopped' ? { status: 'running' } : { refused: 409 };
    case 'StopSource':
      return s === 'running' ? { status: 'stopped' } : { refused: 409 };
    case 'DeleteSource':
      return { status: 'deleted' };
    case 'RemoveSourceAuth':
      return (m.auth.get(c.id) ?? 0) > 0 ? { status: s } : { refused: 400 };
    case 'Ingest': {
      if (s !== 'running') return { refused: 409 };
      const minute = Math.floor(m.now / 60_000);
      const w = m.requests.get(c.id);
      const count = w && w.minute === minute ? w.count : 0;
      return count < LIMITS.requestsPerMinute ? { status: s } : { refused: 413 };
    }
    default:
      return { status: s };
  }
}

let seq = 0;
const freshId = () => (seq++).toString(16).padStart(32, '0');

class Act implements fc.Command<Model, Real> {
  constructor(readonly make: (m: Model, r: Real) => SourceCommand) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const c = this.make(m, r);
    const expected = expectModel(m, c);
    let events: SourceEvent[] | undefined;
    let refusal: number | undefined;
    try {
      events = sourcesDecider.decide(c, r.state);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refusal = error.status;
    }
    expect(refusal, `${c.type} on ${m.status.get(c.id) ?? 'nothing'}`).toBe(expected.refused);
    if (expected.refused !== undefined) return;
    for (const e of events!) r.state = sourcesDecider.evolve(r.state, e);
    r.log.push(...events!);
    m.status.set(c.id, expected.status!);
    if (c.type === 'CreateSource') m.auth.set(c.id, c.auth.length);
    if (c.type === 'AddSourceAuth') m.auth.set(c.id, (m.auth.get(c.id) ?? 0) + c.auth.length);
    if (c.type === 'RemoveSourceAuth') m.auth.set(c.id, (m.auth.get(c.id) ?? 0) - c.auth_ids.length);
    if (c.type === 'Ingest') {
      const minute = Math.floor(m.now / 60_000);
      const w = m.requests.get(c.id);
      m.requests.set(c.id, { minute, count: w && w.minute === minute ? w.count + 1 : 1 });
    }
    for (const [id, status] of m.status) expect(r.state.sources[id]!.status, id).toBe(status);
    expect(fold(sourcesDecider, r.log)).toEqual(r.state);
  }
  toString(): string {
    return 'act';
  }
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model): void {
    m.now += this.ms;
  }
  toString(): string {
    return `advance ${this.ms}`;
  }
}

const id = fc.constantFrom(...IDS);
const authEntry = () => ({ identity_id: freshId(), expires_at: null, parameters: { value: 'tok' } });
const commands = [
  id.map((i) => new Act((m) => ({ type: 'CreateSource', id: i, source_type: 'facebook_page', name: 'p', parameters: {}, resources: [], auth: [authEntry()], at: m.now, holdLimit: 1000 }))),
  ...(['StartSource', 'StopSource', 'DeleteSource'] as const).map((type) => id.map((i) => new Act((m) => ({ type, id: i, at: m.now })))),
  id.map((i) => new Act((m) => ({ type: 'UpdateSource', id: i, at: m.now, changes: { name: 'renamed' } }))),
  id.map((i) => new Act((m) => ({ type: 'AddSourceAuth', id: i, at: m.now, auth: [authEntry()] }))),
  id.map((i) => new Act((m, r) => {
    // Removes the oldest auth entry the source really has (the model only counts them).
    const held = m.status.get(i) && m.status.get(i) !== 'deleted' ? (r.state.sources[i]?.auth ?? []) : [];
    return { type: 'RemoveSourceAuth', id: i, at: m.now, auth_ids: held.length > 0 ? [held[0]!.identity_id] : ['f'.repeat(32)] };
  })),
  id.map((i) => new Act((m) => ({ type: 'AddSourceResources', id: i, at: m.now, resources: [{ resource_id: freshId(), parameters: { id: '1' } }] }))),
  id.map((i) => new Act((m) => ({ type: 'Ingest', id: i, at: m.now, bytes: 10, accepted: 1, limits: LIMITS }))),
  fc.integer({ min: 1, max: 40_000 }).map((ms) => new Advance(ms)),
];

test.prop([fc.commands(commands, { maxCommands: 60 })], { numRuns: 300 })(
  'the managed-source aggregate and the model of allowed transitions never disagree, and replaying the log rebuilds the state',
  (cmds) => {
    fc.modelRun(() => ({ model: { now: T0, status: new Map(), requests: new Map(), auth: new Map() }, real: { state: sourcesDecider.initialState(), log: [] } }), cmds);
  },
);

import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { callingIdentity, identitiesDecider, type Identities, type IdentityCommand, type IdentityEvent } from './identity.ts';

/**
 * The model: what the seed and docs/contract.md#states say about identities, with none of the aggregate's
 * bookkeeping. Each command predicts either the event type or the refusal status.
 */
interface ModelIdentity {
  label: string;
  status: 'active' | 'disabled';
  deleted: boolean;
  tokens: Map<string, 'live' | 'deleted'>;
  limits: Set<string>;
}
type Model = Map<string, ModelIdentity>;
interface Real {
  state: Identities;
  events: IdentityEvent[];
}

const IDS = ['1', '2', '3'].map((c) => c.repeat(32));
const LABELS = ['a', 'b', 'c'];
const SERVICES = ['facebook', 'linkedin'];
const ANY_SERVICE = ['facebook', 'linkedin', 'myspace'];

type Outcome = string | number;

function labelTaken(m: Model, label: string, self?: string): boolean {
  for (const [id, i] of m) if (id !== self && !i.deleted && i.label === label) return true;
  return false;
}

/** The identity a command names: 404 unknown, 410 deleted. */
function live(m: Model, id: string): ModelIdentity | number {
  const i = m.get(id);
  if (!i) return 404;
  return i.deleted ? 410 : i;
}

function predict(m: Model, c: IdentityCommand): Outcome {
  switch (c.type) {
    case 'CreateIdentity':
      return m.has(c.id) || labelTaken(m, c.label) ? 409 : 'IdentityCreated';
    case 'UpdateIdentity': {
      const i = live(m, c.id);
      if (typeof i === 'number') return i;
      return c.label !== undefined && labelTaken(m, c.label, c.id) ? 409 : 'IdentityUpdated';
    }
    case 'DeleteIdentity': {
      const i = live(m, c.id);
      return typeof i === 'number' ? i : 'IdentityDeleted';
    }
    case 'CreateToken': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      return i.tokens.get(c.service) === 'live' ? 409 : 'IdentityTokenCreated';
    }
    case 'PutToken': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      return i.tokens.get(c.service) === 'live' ? 'IdentityTokenUpdated' : 'IdentityTokenCreated';
    }
    case 'DeleteToken': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      const t = i.tokens.get(c.service);
      return t === undefined ? 404 : t === 'deleted' ? 410 : 'IdentityTokenDeleted';
    }
    case 'CreateLimit': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      if (!SERVICES.includes(c.service)) return 400;
      return i.limits.has(c.service) ? 409 : 'IdentityLimitCreated';
    }
    case 'PutLimit': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      if (!SERVICES.includes(c.service)) return 400;
      return i.limits.has(c.service) ? 'IdentityLimitUpdated' : 'IdentityLimitCreated';
    }
    case 'DeleteLimit': {
      const i = live(m, c.identityId);
      if (typeof i === 'number') return i;
      if (!SERVICES.includes(c.service)) return 400;
      return i.limits.has(c.service) ? 'IdentityLimitDeleted' : 404;
    }
  }
}

function applyToModel(m: Model, c: IdentityCommand): void {
  switch (c.type) {
    case 'CreateIdentity':
      m.set(c.id, { label: c.label, status: 'active', deleted: false, tokens: new Map(), limits: new Set() });
      return;
    case 'UpdateIdentity':
      if (c.label !== undefined) m.get(c.id)!.label = c.label;
      if (c.status !== undefined) m.get(c.id)!.status = c.status;
      return;
    case 'DeleteIdentity':
      m.get(c.id)!.deleted = true;
      return;
    case 'CreateToken':
    case 'PutToken':
      m.get(c.identityId)!.tokens.set(c.service, 'live');
      return;
    case 'DeleteToken':
      m.get(c.identityId)!.tokens.set(c.service, 'deleted');
      return;
    case 'CreateLimit':
    case 'PutLimit':
      m.get(c.identityId)!.limits.add(c.service);
      return;
    case 'DeleteLimit':
      m.get(c.identityId)!.limits.delete(c.service);
      return;
  }
}

class Step implements fc.Command<Model, Real> {
  constructor(readonly command: IdentityCommand) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const expected = predict(m, this.command);
    let outcome: Outcome;
    let events: IdentityEvent[] = [];
    try {
      events = identitiesDecider.decide(this.command, r.state);
      outcome = events.map((e) => e.type).join(',');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcome = error.status;
    }
    expect(outcome).toBe(expected);
    for (const e of events) r.state = identitiesDecider.evolve(r.state, e);
    r.events.push(...events);
    if (typeof expected === 'string') applyToModel(m, this.command);
    // Replaying the whole log rebuilds the same state.
    expect(fold(identitiesDecider, r.events)).toEqual(r.state);
    // Only an active, undeleted identity's key calls.
    for (const id of IDS) {
      const i = m.get(id);
      expect(callingIdentity(r.state, `k${id}`)?.id).toBe(i && !i.deleted && i.status === 'active' ? id : undefined);
    }
  }
  toString(): string {
    return JSON.stringify(this.command);
  }
}

const id = fc.constantFrom(...IDS);
const service = fc.constantFrom(...ANY_SERVICE);
const figures = fc.record({ totalAllowance: fc.option(fc.nat(1000), { nil: undefined }), analyzeQueries: fc.nat(10) });

const commands = [
  fc.record({ id, label: fc.constantFrom(...LABELS) }).map(({ id, label }) => new Step({ type: 'CreateIdentity', id, label, keyHash: `k${id}`, at: 1, holdLimit: 1000 })),
  fc
    .record({ id, label: fc.option(fc.constantFrom(...LABELS), { nil: undefined }), status: fc.constantFrom('active', 'disabled') as fc.Arbitrary<'active' | 'disabled'> })
    .map(({ id, label, status }) => new Step({ type: 'UpdateIdentity', id, ...(label !== undefined ? { label } : {}), status, at: 2 })),
  id.map((id) => new Step({ type: 'DeleteIdentity', id, at: 3 })),
  fc.tuple(id, service).map(([identityId, service]) => new Step({ type: 'CreateToken', identityId, service, token: 't', at: 4, holdLimit: 1000 })),
  fc.tuple(id, service).map(([identityId, service]) => new Step({ type: 'PutToken', identityId, service, token: 'u', at: 5, holdLimit: 1000 })),
  fc.tuple(id, service).map(([identityId, service]) => new Step({ type: 'DeleteToken', identityId, service, at: 6 })),
  fc.tuple(id, service, figures).map(([identityId, service, figures]) => new Step({ type: 'CreateLimit', identityId, service, services: SERVICES, figures, at: 7 })),
  fc.tuple(id, service, figures).map(([identityId, service, figures]) => new Step({ type: 'PutLimit', identityId, service, services: SERVICES, figures, at: 8 })),
  fc.tuple(id, service).map(([identityId, service]) => new Step({ type: 'DeleteLimit', identityId, service, services: SERVICES, at: 9 })),
];

test.prop([fc.commands(commands, { maxCommands: 60 })], { numRuns: 200 })(
  'identities never disagree with the model of their transitions, only active identities\' keys call, and replaying the log rebuilds the state',
  (cmds) => {
    fc.modelRun(() => ({ model: new Map(), real: { state: identitiesDecider.initialState(), events: [] } }), cmds);
  },
);

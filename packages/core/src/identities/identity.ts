import { packageService } from '../accounting/package-service.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, Gone, NotFound, oneOf } from '../calls/errors.ts';
import { checkHolding } from '../accounting/holding-limits.ts';
import { own } from '../calls/input-limits.ts';

/**
 * An account's identities (docs/contract.md#endpoints-and-costs): each has its own API key (kept only as a salted digest), a
 * status, and per service an access token and a limit that narrows what calls made with its key may
 * use (docs/contract.md#hourly-allowances). One stream per account, so a label stays unique and a key maps to one identity.
 */
export type IdentityStatus = 'active' | 'disabled';
export const IDENTITY_STATUSES: readonly IdentityStatus[] = ['active', 'disabled'];

export interface IdentityToken {
  service: string;
  token: string;
  createdAt: number;
  updatedAt: number;
  /** A deleted token answers 410 until it is created again. */
  deleted: boolean;
}

export interface IdentityLimit {
  service: string;
  /** Credits an hour this identity's calls may draw from the general allowance; `null`: no narrower limit. */
  totalAllowance: number | null;
  /** Analyze calls an hour this identity may make; `null`: no narrower limit. */
  analyzeQueries: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface Identity {
  id: string;
  label: string;
  keyHash: string;
  status: IdentityStatus;
  master: boolean;
  createdAt: number;
  updatedAt: number;
  deleted: boolean;
  tokens: Record<string, IdentityToken>;
  limits: Record<string, IdentityLimit>;
}

export interface Identities {
  byId: Record<string, Identity>;
  /** Ids in creation order (lists answer in this order). */
  order: string[];
  /** Key digest → identity id, for every identity ever created (a deleted one's key stays refused). */
  byKeyHash: Record<string, string>;
}

export type IdentityEvent =
  | DomainEvent<'IdentityCreated', { id: string; label: string; keyHash: string; status: IdentityStatus; master: boolean; at: number }>
  | DomainEvent<'IdentityUpdated', { id: string; label: string; status: IdentityStatus; master: boolean; at: number }>
  | DomainEvent<'IdentityDeleted', { id: string; at: number }>
  | DomainEvent<'IdentityTokenCreated', { identityId: string; service: string; token: string; at: number }>
  | DomainEvent<'IdentityTokenUpdated', { identityId: string; service: string; token: string; at: number }>
  | DomainEvent<'IdentityTokenDeleted', { identityId: string; service: string; at: number }>
  | DomainEvent<'IdentityLimitCreated', { identityId: string; service: string; totalAllowance: number | null; analyzeQueries: number | null; at: number }>
  | DomainEvent<'IdentityLimitUpdated', { identityId: string; service: string; totalAllowance: number | null; analyzeQueries: number | null; at: number }>
  | DomainEvent<'IdentityLimitDeleted', { identityId: string; service: string; at: number }>;

/** Limit figures as a command carries them: `undefined` keeps the current value, `null` clears it. */
export interface LimitFigures {
  totalAllowance?: number | null;
  analyzeQueries?: number | null;
}

export type IdentityCommand =
  | { type: 'CreateIdentity'; id: string; label: string; keyHash: string; status?: IdentityStatus; master?: boolean; at: number; holdLimit: number }
  | { type: 'UpdateIdentity'; id: string; label?: string; status?: IdentityStatus; master?: boolean; at: number }
  | { type: 'DeleteIdentity'; id: string; at: number }
  | { type: 'CreateToken'; identityId: string; service: string; token: string; at: number; holdLimit: number }
  | { type: 'PutToken'; identityId: string; service: string; token: string; at: number; holdLimit: number }
  | { type: 'DeleteToken'; identityId: string; service: string; at: number }
  /** `services`: the account package's services, the only ones a limit may name. */
  | { type: 'CreateLimit'; identityId: string; service: string; services: readonly string[]; figures: LimitFigures; at: number }
  | { type: 'PutLimit'; identityId: string; service: string; services: readonly string[]; figures: LimitFigures; at: number }
  | { type: 'DeleteLimit'; identityId: string; service: string; services: readonly string[]; at: number };

export const identitiesStream = (username: string): string => `identities:${username}`;

export const LABEL_MAX = 255;
export const TOKEN_MAX = 2048;
const TOKEN_SERVICE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The identity a call names, refused as the service did: unknown 404, deleted 410. */
export function liveIdentity(state: Identities, id: string): Identity {
  const identity = own(state.byId, id);
  if (!identity) throw new NotFound('Identity not found');
  if (identity.deleted) throw new Gone('The Identity with the supplied id has been deleted');
  return identity;
}

export function liveToken(identity: Identity, service: string): IdentityToken {
  const token = own(identity.tokens, service);
  if (!token) throw new NotFound(`A token for ${service} was not found for the Identity`);
  if (token.deleted) throw new Gone(`The Identity's token for ${service} has been deleted`);
  return token;
}

export function liveLimit(identity: Identity, service: string): IdentityLimit {
  const limit = own(identity.limits, service);
  if (!limit) throw new NotFound(`A limit for ${service} was not found for the Identity`);
  return limit;
}

function checkLabel(state: Identities, label: string, self?: string): void {
  if (label.trim().length === 0) throw new BadRequest('label must not be empty');
  if (label.length > LABEL_MAX) throw new BadRequest(`label must be at most ${LABEL_MAX} characters`);
  for (const id of state.order) {
    const other = state.byId[id]!;
    if (id !== self && !other.deleted && other.label === label) {
      throw new Conflict(`An Identity with the label "${label}" already exists`);
    }
  }
}

/** Identities the account holds: every one not deleted. */
export function heldIdentities(state: Identities): number {
  let held = 0;
  for (const id of state.order) if (!state.byId[id]!.deleted) held++;
  return held;
}

/**
 * Tokens an identity holds, deleted ones included: a deleted token stays (it answers 410) and is created
 * again under its service, so counting them bounds what create-and-delete under new names can leave.
 */
export const heldTokens = (identity: Identity): number => Object.keys(identity.tokens).length;

function checkStatus(status: string | undefined): void {
  if (status !== undefined) oneOf('status', status, IDENTITY_STATUSES);
}

function checkTokenService(service: string): void {
  if (!TOKEN_SERVICE.test(service)) throw new BadRequest('service must be 1 to 64 letters, digits or _ . -');
}

function checkToken(token: string): void {
  if (token.length === 0) throw new BadRequest("Missing param 'token'");
  if (token.length > TOKEN_MAX) throw new BadRequest(`token must be at most ${TOKEN_MAX} characters`);
}


function checkFigure(name: string, value: number | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value < 0) throw new BadRequest(`${name} must be a whole number of 0 or more`);
}

export const identitiesDecider: Decider<Identities, IdentityCommand, IdentityEvent> = {
  name: 'identities.v1',
  initialState: () => ({ byId: {}, order: [], byKeyHash: {} }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateIdentity': {
        if (own(state.byId, command.id)) throw new Conflict(`An Identity with the id ${command.id} already exists`);
        checkLabel(state, command.label);
        checkStatus(command.status);
        checkHolding('identities', heldIdentities(state), command.holdLimit);
        if (state.byKeyHash[command.keyHash]) throw new Conflict('That API key is already in use');
        return [
          {
            type: 'IdentityCreated',
            data: { id: command.id, label: command.label, keyHash: command.keyHash, status: command.status ?? 'active', master: command.master ?? false, at: command.at },
          },
        ];
      }
      case 'UpdateIdentity': {
        const identity = liveIdentity(state, command.id);
        if (command.label !== undefined) checkLabel(state, command.label, identity.id);
        checkStatus(command.status);
        return [
          {
            type: 'IdentityUpdated',
            data: {
              id: identity.id,
              label: command.label ?? identity.label,
              status: command.status ?? identity.status,
              master: command.master ?? identity.master,
              at: command.at,
            },
          },
        ];
      }
      case 'DeleteIdentity': {
        liveIdentity(state, command.id);
        return [{ type: 'IdentityDeleted', data: { id: command.id, at: command.at } }];
      }
      case 'CreateToken': {
        const identity = liveIdentity(state, command.identityId);
        checkTokenService(command.service);
        checkToken(command.token);
        const existing = own(identity.tokens, command.service);
        if (existing && !existing.deleted) throw new Conflict(`A token for ${command.service} already exists for that Identity`);
        if (!existing) checkHolding('identity_tokens', heldTokens(identity), command.holdLimit);
        return [{ type: 'IdentityTokenCreated', data: { identityId: identity.id, service: command.service, token: command.token, at: command.at } }];
      }
      case 'PutToken': {
        const identity = liveIdentity(state, command.identityId);
        checkTokenService(command.service);
        checkToken(command.token);
        const existing = own(identity.tokens, command.service);
        if (!existing) checkHolding('identity_tokens', heldTokens(identity), command.holdLimit);
        const type = existing && !existing.deleted ? 'IdentityTokenUpdated' : 'IdentityTokenCreated';
        return [{ type, data: { identityId: identity.id, service: command.service, token: command.token, at: command.at } }];
      }
      case 'DeleteToken': {
        const identity = liveIdentity(state, command.identityId);
        liveToken(identity, command.service);
        return [{ type: 'IdentityTokenDeleted', data: { identityId: identity.id, service: command.service, at: command.at } }];
      }
      case 'CreateLimit': {
        const identity = liveIdentity(state, command.identityId);
        packageService(command.services, command.service);
        const { totalAllowance, analyzeQueries } = command.figures;
        checkFigure('total_allowance', totalAllowance);
        checkFigure('analyze_queries', analyzeQueries);
        if ((totalAllowance ?? null) === null && (analyzeQueries ?? null) === null) {
          throw new BadRequest('A limit needs total_allowance or analyze_queries');
        }
        if (own(identity.limits, command.service)) throw new Conflict(`A limit for ${command.service} already exists for that Identity`);
        return [
          {
            type: 'IdentityLimitCreated',
            data: { identityId: identity.id, service: command.service, totalAllowance: totalAllowance ?? null, analyzeQueries: analyzeQueries ?? null, at: command.at },
          },
        ];
      }
      case 'PutLimit': {
        const identity = liveIdentity(state, command.identityId);
        packageService(command.services, command.service);
        const { totalAllowance, analyzeQueries } = command.figures;
        checkFigure('total_allowance', totalAllowance);
        checkFigure('analyze_queries', analyzeQueries);
        const existing = own(identity.limits, command.service);
        const next = {
          totalAllowance: totalAllowance === undefined ? (existing?.totalAllowance ?? null) : totalAllowance,
          analyzeQueries: analyzeQueries === undefined ? (existing?.analyzeQueries ?? null) : analyzeQueries,
        };
        if (!existing && next.totalAllowance === null && next.analyzeQueries === null) {
          throw new BadRequest('A limit needs total_allowance or analyze_queries');
        }
        return [
          {
            type: existing ? 'IdentityLimitUpdated' : 'IdentityLimitCreated',
            data: { identityId: identity.id, service: command.service, ...next, at: command.at },
          },
        ];
      }
      case 'DeleteLimit': {
        const identity = liveIdentity(state, command.identityId);
        packageService(command.services, command.service);
        liveLimit(identity, command.service);
        return [{ type: 'IdentityLimitDeleted', data: { identityId: identity.id, service: command.service, at: command.at } }];
      }
    }
  },
  evolve: evolveWith<Identities, IdentityEvent>({
    IdentityCreated(s, d) {
      s.byId[d.id] = { id: d.id, label: d.label, keyHash: d.keyHash, status: d.status, master: d.master, createdAt: d.at, updatedAt: d.at, deleted: false, tokens: {}, limits: {} };
      s.order.push(d.id);
      s.byKeyHash[d.keyHash] = d.id;
    },
    IdentityUpdated(s, d) {
      const i = s.byId[d.id]!;
      i.label = d.label;
      i.status = d.status;
      i.master = d.master;
      i.updatedAt = d.at;
    },
    IdentityDeleted(s, d) {
      const i = s.byId[d.id]!;
      i.deleted = true;
      i.updatedAt = d.at;
    },
    IdentityTokenCreated(s, d) {
      s.byId[d.identityId]!.tokens[d.service] = { service: d.service, token: d.token, createdAt: d.at, updatedAt: d.at, deleted: false };
    },
    IdentityTokenUpdated(s, d) {
      const t = s.byId[d.identityId]!.tokens[d.service]!;
      t.token = d.token;
      t.updatedAt = d.at;
    },
    IdentityTokenDeleted(s, d) {
      const t = s.byId[d.identityId]!.tokens[d.service]!;
      t.deleted = true;
      t.updatedAt = d.at;
    },
    IdentityLimitCreated(s, d) {
      s.byId[d.identityId]!.limits[d.service] = { service: d.service, totalAllowance: d.totalAllowance, analyzeQueries: d.analyzeQueries, createdAt: d.at, updatedAt: d.at };
    },
    IdentityLimitUpdated(s, d) {
      const l = s.byId[d.identityId]!.limits[d.service]!;
      l.totalAllowance = d.totalAllowance;
      l.analyzeQueries = d.analyzeQueries;
      l.updatedAt = d.at;
    },
    IdentityLimitDeleted(s, d) {
      delete s.byId[d.identityId]!.limits[d.service];
    },
  }),
};

/** The identity a key digest names, if that identity may call: active and not deleted. */
export function callingIdentity(state: Identities, keyHash: string): Identity | null {
  const id = state.byKeyHash[keyHash];
  if (id === undefined) return null;
  const identity = state.byId[id]!;
  return identity.deleted || identity.status !== 'active' ? null : identity;
}

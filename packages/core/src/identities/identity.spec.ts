import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { callingIdentity, identitiesDecider, type IdentityEvent } from './identity.ts';

const spec = () => deciderSpec(identitiesDecider);
const ID = 'a'.repeat(32);
const OTHER = 'b'.repeat(32);
const services = ['facebook', 'linkedin'];

const created: IdentityEvent = { type: 'IdentityCreated', data: { id: ID, label: 'team', keyHash: 'h1', status: 'active', master: false, at: 1000 } };
const deleted: IdentityEvent = { type: 'IdentityDeleted', data: { id: ID, at: 3000 } };
const tokenCreated: IdentityEvent = { type: 'IdentityTokenCreated', data: { identityId: ID, service: 'facebook', token: 't1', at: 2000 } };
const tokenDeleted: IdentityEvent = { type: 'IdentityTokenDeleted', data: { identityId: ID, service: 'facebook', at: 2500 } };
const limitCreated: IdentityEvent = {
  type: 'IdentityLimitCreated',
  data: { identityId: ID, service: 'facebook', totalAllowance: 100, analyzeQueries: null, at: 2000 },
};

describe('identities: create, update, delete', () => {
  it('creates an active identity by default, keeping its key digest', () => {
    const s = spec().when({ type: 'CreateIdentity', id: ID, label: 'team', keyHash: 'h1', at: 1000, holdLimit: 1000 }).then([created]);
    expect(callingIdentity(s, 'h1')?.id).toBe(ID);
  });

  it('refuses a duplicate label (409) and an empty one (400)', () => {
    spec().given([created]).when({ type: 'CreateIdentity', id: OTHER, label: 'team', keyHash: 'h2', at: 1, holdLimit: 1000 }).thenThrows(409, /label "team" already exists/);
    spec().when({ type: 'CreateIdentity', id: OTHER, label: '  ', keyHash: 'h2', at: 1, holdLimit: 1000 }).thenThrows(400, /label/);
  });

  it('frees the label of a deleted identity', () => {
    spec()
      .given([created, deleted])
      .when({ type: 'CreateIdentity', id: OTHER, label: 'team', keyHash: 'h2', at: 4000, holdLimit: 1000 })
      .then([{ type: 'IdentityCreated', data: { id: OTHER, label: 'team', keyHash: 'h2', status: 'active', master: false, at: 4000 } }]);
  });

  it('refuses a status that is not active or disabled (400)', () => {
    spec().when({ type: 'CreateIdentity', id: ID, label: 'x', keyHash: 'h', status: 'gone' as never, at: 1, holdLimit: 1000 }).thenThrows(400, /status is invalid/);
  });

  it('updates label, status and master, keeping what is not given', () => {
    const s = spec()
      .given([created])
      .when({ type: 'UpdateIdentity', id: ID, status: 'disabled', at: 2000 })
      .then([{ type: 'IdentityUpdated', data: { id: ID, label: 'team', status: 'disabled', master: false, at: 2000 } }]);
    expect(callingIdentity(s, 'h1')).toBeNull();
  });

  it('refuses an update to a label another identity holds (409)', () => {
    const other: IdentityEvent = { type: 'IdentityCreated', data: { id: OTHER, label: 'ops', keyHash: 'h2', status: 'active', master: false, at: 1 } };
    spec().given([created, other]).when({ type: 'UpdateIdentity', id: ID, label: 'ops', at: 2 }).thenThrows(409);
  });

  it('answers 404 for an unknown identity', () => {
    spec().when({ type: 'UpdateIdentity', id: ID, label: 'x', at: 1 }).thenThrows(404, /Identity not found/);
    spec().when({ type: 'DeleteIdentity', id: ID, at: 1 }).thenThrows(404);
  });

  it('deletes, after which every command on it answers 410 and its key no longer calls', () => {
    const s = spec().given([created]).when({ type: 'DeleteIdentity', id: ID, at: 3000 }).then([deleted]);
    expect(callingIdentity(s, 'h1')).toBeNull();
    const after = spec().given([created, deleted]);
    after.when({ type: 'DeleteIdentity', id: ID, at: 1 }).thenThrows(410, /has been deleted/);
    after.when({ type: 'UpdateIdentity', id: ID, label: 'x', at: 1 }).thenThrows(410);
    after.when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: 't', at: 1, holdLimit: 1000 }).thenThrows(410);
    after.when({ type: 'PutToken', identityId: ID, service: 'facebook', token: 't', at: 1, holdLimit: 1000 }).thenThrows(410);
    after.when({ type: 'DeleteToken', identityId: ID, service: 'facebook', at: 1 }).thenThrows(410);
    after.when({ type: 'CreateLimit', identityId: ID, service: 'facebook', services, figures: { totalAllowance: 1 }, at: 1 }).thenThrows(410);
    after.when({ type: 'PutLimit', identityId: ID, service: 'facebook', services, figures: { totalAllowance: 1 }, at: 1 }).thenThrows(410);
    after.when({ type: 'DeleteLimit', identityId: ID, service: 'facebook', services, at: 1 }).thenThrows(410);
  });
});

describe('identities: tokens per service', () => {
  it('creates a token, then refuses a second for the same service (409)', () => {
    spec().given([created]).when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: 't1', at: 2000, holdLimit: 1000 }).then([tokenCreated]);
    spec().given([created, tokenCreated]).when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: 't2', at: 1, holdLimit: 1000 }).thenThrows(409, /already exists/);
  });

  it('put updates an existing token and creates a missing one', () => {
    spec()
      .given([created, tokenCreated])
      .when({ type: 'PutToken', identityId: ID, service: 'facebook', token: 't2', at: 3, holdLimit: 1000 })
      .then([{ type: 'IdentityTokenUpdated', data: { identityId: ID, service: 'facebook', token: 't2', at: 3 } }]);
    spec()
      .given([created])
      .when({ type: 'PutToken', identityId: ID, service: 'facebook', token: 't2', at: 3, holdLimit: 1000 })
      .then([{ type: 'IdentityTokenCreated', data: { identityId: ID, service: 'facebook', token: 't2', at: 3 } }]);
  });

  it('deletes a token: 404 when there is none, 410 once deleted, and it can be created again', () => {
    spec().given([created, tokenCreated]).when({ type: 'DeleteToken', identityId: ID, service: 'facebook', at: 2500 }).then([tokenDeleted]);
    spec().given([created]).when({ type: 'DeleteToken', identityId: ID, service: 'facebook', at: 1 }).thenThrows(404);
    spec().given([created, tokenCreated, tokenDeleted]).when({ type: 'DeleteToken', identityId: ID, service: 'facebook', at: 1 }).thenThrows(410);
    spec()
      .given([created, tokenCreated, tokenDeleted])
      .when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: 't3', at: 9, holdLimit: 1000 })
      .then([{ type: 'IdentityTokenCreated', data: { identityId: ID, service: 'facebook', token: 't3', at: 9 } }]);
  });

  it('refuses an empty token or a malformed service (400)', () => {
    spec().given([created]).when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: '', at: 1, holdLimit: 1000 }).thenThrows(400, /token/);
    spec().given([created]).when({ type: 'CreateToken', identityId: ID, service: 'a b', token: 't', at: 1, holdLimit: 1000 }).thenThrows(400, /service/);
  });
});

describe('identities: limits per service', () => {
  it('creates a limit for a service of the package', () => {
    spec()
      .given([created])
      .when({ type: 'CreateLimit', identityId: ID, service: 'facebook', services, figures: { totalAllowance: 100 }, at: 2000 })
      .then([limitCreated]);
  });

  it('refuses a service outside the package, naming the valid ones (400)', () => {
    spec()
      .given([created])
      .when({ type: 'CreateLimit', identityId: ID, service: 'myspace', services, figures: { totalAllowance: 1 }, at: 1 })
      .thenThrows(400, /^service is invalid; valid values are: facebook,linkedin$/);
  });

  it('refuses a limit with neither figure, or a negative one (400)', () => {
    spec().given([created]).when({ type: 'CreateLimit', identityId: ID, service: 'facebook', services, figures: {}, at: 1 }).thenThrows(400);
    spec().given([created]).when({ type: 'CreateLimit', identityId: ID, service: 'facebook', services, figures: { analyzeQueries: -1 }, at: 1 }).thenThrows(400, /analyze_queries/);
  });

  it('refuses a second limit for the same service (409)', () => {
    spec().given([created, limitCreated]).when({ type: 'CreateLimit', identityId: ID, service: 'facebook', services, figures: { totalAllowance: 5 }, at: 1 }).thenThrows(409);
  });

  it('put changes only the figures given, or creates the limit', () => {
    spec()
      .given([created, limitCreated])
      .when({ type: 'PutLimit', identityId: ID, service: 'facebook', services, figures: { analyzeQueries: 50 }, at: 3 })
      .then([{ type: 'IdentityLimitUpdated', data: { identityId: ID, service: 'facebook', totalAllowance: 100, analyzeQueries: 50, at: 3 } }]);
    spec()
      .given([created])
      .when({ type: 'PutLimit', identityId: ID, service: 'linkedin', services, figures: { analyzeQueries: 5 }, at: 3 })
      .then([{ type: 'IdentityLimitCreated', data: { identityId: ID, service: 'linkedin', totalAllowance: null, analyzeQueries: 5, at: 3 } }]);
  });

  it('deletes a limit; deleting a missing one answers 404', () => {
    spec()
      .given([created, limitCreated])
      .when({ type: 'DeleteLimit', identityId: ID, service: 'facebook', services, at: 4 })
      .then([{ type: 'IdentityLimitDeleted', data: { identityId: ID, service: 'facebook', at: 4 } }]);
    spec().given([created]).when({ type: 'DeleteLimit', identityId: ID, service: 'facebook', services, at: 4 }).thenThrows(404, /limit for facebook was not found/);
  });
});

describe('identities: what one account can make them hold', () => {
  it('an identity past the package\'s identities is refused 403 naming the field; a deleted one no longer counts', () => {
    spec().given([created]).when({ type: 'CreateIdentity', id: OTHER, label: 'other', keyHash: 'h2', at: 4000, holdLimit: 1 }).thenThrows(403, /allows 1 identity \(identities\)/);
    spec()
      .given([created, deleted])
      .when({ type: 'CreateIdentity', id: OTHER, label: 'other', keyHash: 'h2', at: 4000, holdLimit: 1 })
      .then([{ type: 'IdentityCreated', data: { id: OTHER, label: 'other', keyHash: 'h2', status: 'active', master: false, at: 4000 } }]);
  });
  it('tokens under new service names stop at identity_tokens, deleted ones counted (they stay and answer 410); replacing one is allowed', () => {
    spec().given([created, tokenCreated, tokenDeleted]).when({ type: 'CreateToken', identityId: ID, service: 'other', token: 't', at: 3000, holdLimit: 1 }).thenThrows(403, /allows 1 token per identity \(identity_tokens\)/);
    spec().given([created, tokenCreated]).when({ type: 'PutToken', identityId: ID, service: 'other', token: 't', at: 3000, holdLimit: 1 }).thenThrows(403, /identity_tokens/);
    spec()
      .given([created, tokenCreated, tokenDeleted])
      .when({ type: 'CreateToken', identityId: ID, service: 'facebook', token: 't9', at: 3000, holdLimit: 1 })
      .then([{ type: 'IdentityTokenCreated', data: { identityId: ID, service: 'facebook', token: 't9', at: 3000 } }]);
  });
});

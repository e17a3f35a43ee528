import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { Conflict, CreditsExhausted, NotFound } from '@sdp/core';
import { accountDecider, creditsDecider, type AccountEvent, type CreditsEvent } from '@sdp/core/deciders';
import { deciderSpec } from './decider-spec.ts';

const T = Date.parse('2026-01-05T08:05:37Z');
const opened: AccountEvent = { type: 'AccountOpened', data: { username: 'alice', salt: 's', keyHash: 'h', package: accountDecider.initialState().package, at: T } };
const charged = (cost: number, start = Date.parse('2026-01-05T08:05:00Z')): CreditsEvent => ({ type: 'CreditsCharged', data: { at: T, endpoint: 'core.validate', lines: [{ key: 'general', cost, start }] } });

describe('deciderSpec: given / when / then', () => {
  it('checks the events decided and returns the state they lead to', () => {
    const state = deciderSpec(accountDecider).given([opened]).when({ type: 'DenyAccount', reason: 'spam' }).then([{ type: 'AccountDenied', data: { reason: 'spam' } }]);
    expect(state).toMatchObject({ denied: true, deniedReason: 'spam' });
    deciderSpec(creditsDecider).given([charged(9990)]).when({ type: 'ChargeCredits', at: T, endpoint: 'core.validate', lines: [{ key: 'general', limit: 10_000, cost: 10 }] }).then([charged(10)]);
  });

  it('checks refusals by error class or by status, and by message', () => {
    const dear = { type: 'ChargeCredits' as const, at: T, endpoint: 'core.validate', lines: [{ key: 'general', limit: 10_000, cost: 15 }] };
    const e = deciderSpec(creditsDecider).given([charged(9990)]).when(dear).thenThrows(CreditsExhausted);
    expect((e as CreditsExhausted).figures.remaining).toBe(10);
    deciderSpec(creditsDecider).given([charged(9990)]).when(dear).thenThrows(429, /15 credits and 10 remain/);
    deciderSpec(accountDecider).given([opened]).when({ type: 'OpenAccount', username: 'alice', apiKey: 'k-12345678', salt: 's', package: {}, at: T }).thenThrows(Conflict, /already exists/);
    deciderSpec(accountDecider).when({ type: 'AllowAccount' }).thenThrows(404);
  });

  it('fails, with both sides printed, when the decider disagrees', () => {
    const spec = deciderSpec(accountDecider).given([opened]).when({ type: 'DenyAccount', reason: 'spam' });
    expect(() => spec.then([])).toThrow(/expected events\n  \[\]\nbut the decider decided\n  \[ \{ type: 'AccountDenied', data: \{ reason: 'spam' \} \} \]/);
    expect(() => spec.thenThrows(409)).toThrow(/expected a 409 refusal but the decider decided/);
    expect(() => deciderSpec(accountDecider).when({ type: 'AllowAccount' }).thenThrows(Conflict)).toThrow(/expected a Conflict but got NotFound/);
    expect(() => deciderSpec(accountDecider).when({ type: 'AllowAccount' }).thenThrows(NotFound, /nothing like this/)).toThrow(/expected a message matching/);
  });

  it('compares events structurally: key order does not matter, undefined and types do', () => {
    const spec = deciderSpec(accountDecider).given([opened]).when({ type: 'DenyAccount', reason: 'spam' });
    spec.then([{ data: { reason: 'spam' }, type: 'AccountDenied' }]);
    const withUndefined = { type: 'AccountDenied', data: { reason: 'spam', extra: undefined } } as unknown as AccountEvent;
    expect(() => spec.then([withUndefined])).toThrow(/expected events\n  \[ \{ type: 'AccountDenied', data: \{ reason: 'spam', extra: undefined \} \} \]/);
    const wrongType = { type: 'CreditsCharged', data: { at: String(T), endpoint: 'core.validate', lines: [{ key: 'general', cost: 10, start: Date.parse('2026-01-05T08:05:00Z') }] } } as unknown as CreditsEvent;
    const charge = deciderSpec(creditsDecider).given([charged(9990)]).when({ type: 'ChargeCredits', at: T, endpoint: 'core.validate', lines: [{ key: 'general', limit: 10_000, cost: 10 }] });
    expect(() => charge.then([wrongType])).toThrow(/expected events/);
  });

  it('fails with an AssertionError carrying both sides, so a test runner can print a diff', () => {
    const spec = deciderSpec(accountDecider).given([opened]).when({ type: 'DenyAccount', reason: 'spam' });
    let caught: unknown;
    try {
      spec.then([]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AssertionError);
    expect(caught).toMatchObject({ actual: [{ type: 'AccountDenied', data: { reason: 'spam' } }], expected: [] });
  });
});

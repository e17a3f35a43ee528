import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatHash, parseHash, VIEW_IDS } from './route.js';

describe("the console's address", () => {
  it('takes the token out of the link sdp serve prints, and names no view but the accounts', () => {
    expect(parseHash('#token=s3cret')).toEqual({ token: 's3cret', view: 'accounts', account: null });
    expect(parseHash('#token=a%26b%3Dc')).toEqual({ token: 'a&b=c', view: 'accounts', account: null });
    expect(parseHash('#events&token=t')).toEqual({ token: 't', view: 'events', account: null });
  });

  it("reads a view, an account's page, and anything unknown as the accounts view", () => {
    expect(parseHash('')).toEqual({ token: null, view: 'accounts', account: null });
    expect(parseHash('#clock')).toEqual({ token: null, view: 'clock', account: null });
    expect(parseHash('#resources/alice')).toEqual({ token: null, view: 'resources', account: 'alice' });
    expect(parseHash('#resources/')).toEqual({ token: null, view: 'resources', account: null });
    expect(parseHash('#nope/x')).toEqual({ token: null, view: 'accounts', account: null });
    expect(parseHash('#token=')).toEqual({ token: null, view: 'accounts', account: null });
  });

  it('writes a place that reads back as itself, and never a token', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VIEW_IDS), fc.option(fc.string({ minLength: 1 }), { nil: null }), (view, account) => {
        const hash = formatHash({ view, account });
        expect(hash).not.toContain('token=');
        expect(parseHash(hash)).toEqual({ token: null, view, account: view === 'resources' ? account : null });
      }),
    );
  });
});

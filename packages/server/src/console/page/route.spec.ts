import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatHash, parseHash, VIEW_IDS } from './route.js';

describe("the console's address", () => {
  it('takes the token out of the link sdp serve prints, and names no view but the accounts', () => {
    expect(parseHash('#token=s3cret')).toEqual({ token: 's3cret', view: 'accounts', account: null, filters: {} });
    expect(parseHash('#token=a%26b%3Dc')).toEqual({ token: 'a&b=c', view: 'accounts', account: null, filters: {} });
    expect(parseHash('#events&token=t')).toEqual({ token: 't', view: 'events', account: null, filters: {} });
  });

  it("reads a view, an account's page, and anything unknown as the accounts view", () => {
    expect(parseHash('')).toEqual({ token: null, view: 'accounts', account: null, filters: {} });
    expect(parseHash('#clock')).toEqual({ token: null, view: 'clock', account: null, filters: {} });
    expect(parseHash('#resources/alice')).toEqual({ token: null, view: 'resources', account: 'alice', filters: {} });
    expect(parseHash('#resources/')).toEqual({ token: null, view: 'resources', account: null, filters: {} });
    expect(parseHash('#nope/x')).toEqual({ token: null, view: 'accounts', account: null, filters: {} });
    expect(parseHash('#token=')).toEqual({ token: null, view: 'accounts', account: null, filters: {} });
  });

  it('writes a place that reads back as itself, and never a token', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VIEW_IDS), fc.option(fc.string({ minLength: 1 }), { nil: null }), (view, account) => {
        const hash = formatHash({ view, account });
        expect(hash).not.toContain('token=');
        expect(parseHash(hash)).toEqual({ token: null, view, account: view === 'resources' ? account : null, filters: {} });
      }),
    );
  });

  it("reads and writes the request journal's filters, which read back as themselves, and never a token", () => {
    expect(parseHash('#requests?username=ada&status=4xx')).toEqual({ token: null, view: 'requests', account: null, filters: { username: 'ada', status: '4xx' } });
    expect(parseHash('#requests?path=%2Fv1.5%2Fpush&token=t')).toEqual({ token: 't', view: 'requests', account: null, filters: { path: '/v1.5/push' } });
    expect(parseHash('#events?username=ada').filters).toEqual({});
    const filter = fc.option(fc.string({ minLength: 1 }), { nil: undefined });
    fc.assert(
      fc.property(fc.record({ username: filter, path: filter, status: filter, since: filter }), (chosen) => {
        const filters = Object.fromEntries(Object.entries(chosen).filter(([, v]) => v !== undefined));
        const hash = formatHash({ view: 'requests', account: null, filters });
        expect(hash).not.toContain('token=');
        expect(parseHash(hash)).toEqual({ token: null, view: 'requests', account: null, filters });
      }),
    );
  });
});

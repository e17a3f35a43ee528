import type { WireRequest, WireResponse } from '@sdp/http';
import { describe, expect, it } from 'vitest';
import type { ApiCall } from '@sdp/core';
import fc from 'fast-check';
import { IN_FLIGHT, JOURNAL_PARAMS_MAX, JOURNAL_TEXT_MAX, RequestJournal, journalRoutes, type JournalFilter } from './request-journal.ts';
import { MASK } from './journal-params.ts';

const request = (method: string, url: string, headers: Record<string, string> = {}): WireRequest => ({ method, url, header: (name) => headers[name], readBody: async () => null });
const apiCall = (params: Record<string, unknown>): ApiCall => ({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'alice', apiKey: 'alice-key-0123' }, params });
const answer = (status: number, headers: Record<string, string> = {}): WireResponse => ({ status, headers });

describe('the request journal', () => {
  it('lists what was asked and answered, newest first: the account from any credentials form, the charge from the rate headers, never the query', async () => {
    const journal = new RequestJournal(10);
    const handler = journal.wrap(async (req) => (req.url.startsWith('/v1.5/validate') ? answer(200, { 'X-RateLimit-Cost': '5', 'X-RateLimit-Remaining': '195', 'X-API-Version': '1.5' }) : answer(404)));
    await handler(request('POST', '/v1.5/validate', { authorization: 'alice:alice-key-0123' }));
    await handler(request('GET', '/nope?username=bob&api_key=secret-key'));
    await handler(request('GET', '/v1.5/validate', { authorization: `Basic ${btoa('carol:carol-key-0123')}` }));
    const { requests, seen, kept } = journal.list();
    expect([seen, kept]).toEqual([3, 10]);
    expect(requests.map(({ time: _, ms: __, ...rest }) => rest)).toEqual([
      { n: 3, method: 'GET', path: '/v1.5/validate', version: '1.5', account: 'carol', status: 200, cost: 5, remaining: 195, params: null, paramsCut: false, positions: null },
      { n: 2, method: 'GET', path: '/nope', version: null, account: 'bob', status: 404, cost: null, remaining: null, params: null, paramsCut: false, positions: null },
      { n: 1, method: 'POST', path: '/v1.5/validate', version: '1.5', account: 'alice', status: 200, cost: 5, remaining: 195, params: null, paramsCut: false, positions: null },
    ]);
    expect(JSON.stringify(requests)).not.toContain('secret-key');
    expect(requests[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('keeps the newest of a fixed number, each text capped, and reads the IETF field where only it is sent', () => {
    const journal = new RequestJournal(3);
    for (let i = 0; i < 7; i++) journal.note(request('GET', `/v1.5/x${i}/${'a'.repeat(2000)}`), answer(200, { RateLimit: `"general";r=${100 - i};t=60` }), 1);
    const { requests, seen } = journal.list();
    expect(seen).toBe(7);
    expect(requests.map((r) => r.path.slice(0, 8))).toEqual(['/v1.5/x6', '/v1.5/x5', '/v1.5/x4']);
    expect(requests.every((r) => r.path.length === JOURNAL_TEXT_MAX)).toBe(true);
    expect(requests.map((r) => r.remaining)).toEqual([94, 95, 96]);
    expect(journal.list(2).requests).toHaveLength(2);
  });

  it('GET /_admin/requests answers the list (limit must be a whole number); DELETE empties it', async () => {
    const journal = new RequestJournal(5);
    journal.note(request('GET', '/v1.5/usage'), answer(200), 2);
    const [get, del] = journalRoutes(journal);
    const run = (route: typeof get, query = '') => route!.run({ params: [], body: {} as never, query: new URLSearchParams(query), text: '' });
    expect(JSON.parse(String((await run(get, 'limit=1')).body))).toMatchObject({ seen: 1, kept: 5, requests: [{ path: '/v1.5/usage' }] });
    expect((await run(get, 'limit=x')).status).toBe(400);
    for (const bad of ['status=40', 'status=6xx', 'since=yesterday']) expect((await run(get, bad)).status, bad).toBe(400);
    expect((await run(del)).status).toBe(204);
    expect(JSON.parse(String((await run(get)).body))).toEqual({ requests: [], seen: 0, kept: 5 });
  });

  it('filters by username, path prefix, status or class, and since (ms or ISO), the limit counting what passes', () => {
    const journal = new RequestJournal(10);
    const note = (url: string, user: string, status: number) => journal.note(request('GET', url, { authorization: `${user}:${user}-key-0123` }), answer(status), 1);
    note('/v1.5/push/get', 'alice', 200);
    note('/v1.5/push/get', 'bob', 200);
    note('/v1.5/validate', 'alice', 400);
    note('/v1.5/push/log', 'alice', 404);
    const paths = (limit: number, filter: JournalFilter) => journal.list(limit, filter).requests.map((r) => `${r.account} ${r.path} ${r.status}`);
    expect(paths(10, { username: 'alice', path: '/v1.5/push' })).toEqual(['alice /v1.5/push/log 404', 'alice /v1.5/push/get 200']);
    expect(paths(1, { username: 'alice' })).toEqual(['alice /v1.5/push/log 404']);
    expect(paths(10, { status: (s) => s >= 400 })).toEqual(['alice /v1.5/push/log 404', 'alice /v1.5/validate 400']);
    expect(paths(10, { since: Date.now() + 60_000 })).toEqual([]);
    expect(paths(10, { since: Date.now() - 60_000 })).toHaveLength(4);
  });

  it('lists the parameters the engine judged (credentials masked) and the positions the call wrote, each call by its own request', () => {
    const journal = new RequestJournal(10);
    const first = request('POST', '/v1.5/validate', { 'content-length': '40' });
    const second = request('GET', '/v1.5/stream?api_key=secret-key-000&hash=abc');
    const firstCall = apiCall({ csdl: 'fb.content contains "tea"' });
    const secondCall = apiCall({ api_key: 'secret-key-000', hash: 'abc' });
    // Told in any order, as concurrent calls interleave: each entry finds its own call.
    journal.wrote(secondCall, 7, 8);
    journal.called(second, secondCall, { status: 200 });
    journal.wrote(firstCall, 4, 6);
    journal.called(first, firstCall, { status: 200 });
    journal.note(first, answer(200), 1);
    journal.note(second, answer(200), 1);
    journal.note(request('GET', '/v1.5/usage'), answer(401), 1);
    const [none, stream, validate] = journal.list().requests;
    expect(validate).toMatchObject({ params: { csdl: 'fb.content contains "tea"' }, paramsCut: false, positions: { first: 4, last: 6 } });
    expect(stream).toMatchObject({ params: { api_key: MASK, hash: 'abc' }, positions: { first: 7, last: 8 } });
    expect(JSON.stringify(journal.list().requests)).not.toContain('secret-key');
    expect(none).toMatchObject({ params: null, positions: null });
  });

  it('holds a large call\'s parameters only as a copy cut to the bound, made when it is noted', () => {
    const journal = new RequestJournal(2);
    const large = () => ({ csdl: 'x'.repeat(100_000), list: Array.from({ length: 10_000 }, (_, i) => i) });
    const sized = request('POST', '/v1.5/validate', { 'content-length': String(JSON.stringify(large()).length) });
    const chunked = request('POST', '/v1.5/validate', { 'transfer-encoding': 'chunked' });
    for (const req of [sized, chunked]) {
      const big = large();
      const call = apiCall(big);
      journal.called(req, call, { status: 200 });
      journal.note(req, answer(200), 1);
      // What the journal holds now is already within the bound: the call's own object is not kept.
      big.csdl = 'changed';
    }
    for (const entry of journal.list().requests) {
      expect(entry.paramsCut).toBe(true);
      expect(JSON.stringify(entry.params).length).toBeLessThanOrEqual(JOURNAL_PARAMS_MAX + 24);
      expect(String(entry.params!.csdl)).toMatch(/^x+$/);
    }
  });

  it("leaves out the operator's successful reads (the console polls them) and the journal's clearing, but notes refused ones and every other change", () => {
    const journal = new RequestJournal(10);
    journal.note(request('GET', '/_admin/requests?limit=5'), answer(200), 1);
    journal.note(request('GET', '/_console/app.js'), answer(200), 1);
    journal.note(request('GET', '/_admin/accounts'), answer(401), 1);
    journal.note(request('POST', '/_admin/clock'), answer(200), 1);
    journal.note(request('DELETE', '/_admin/requests'), answer(204), 1);
    journal.note(request('GET', '/v1.5/usage'), answer(200), 1);
    expect(journal.list().requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /v1.5/usage 200', 'POST /_admin/clock 200', 'GET /_admin/accounts 401']);
  });

  it('gives each request its own call\'s parameters and positions, however up to IN_FLIGHT calls interleave', () => {
    const order = (n: number) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n });
    const plan = fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(order(n), order(n), order(n), fc.integer({ min: 0, max: IN_FLIGHT - 2 * n })));
    fc.assert(
      fc.property(plan, ([wrote, called, noted, unmatched]) => {
        const journal = new RequestJournal(100);
        const reqs = wrote.map((_, i) => request('POST', `/v1.5/validate?i=${i}`));
        const calls = wrote.map((_, i) => apiCall({ i }));
        // Calls no request carries (a stream action's) are told of too, and never matched.
        for (let k = 0; k < unmatched; k++) journal.wrote(apiCall({ stray: k }), 1, 1);
        for (const i of wrote) if (i % 3 !== 0) journal.wrote(calls[i]!, 10 * i + 1, 10 * i + 3);
        for (const i of called) journal.called(reqs[i]!, calls[i]!, { status: 200 });
        for (const i of noted) journal.note(reqs[i]!, answer(200), 1);
        for (const entry of journal.list().requests) {
          const i = entry.params!.i as number;
          expect(entry.path).toBe('/v1.5/validate');
          expect(entry.positions).toEqual(i % 3 === 0 ? null : { first: 10 * i + 1, last: 10 * i + 3 });
        }
        expect(journal.list().requests.map((e) => e.params!.i).sort()).toEqual(noted.slice(-100).sort());
      }),
    );
  });
});

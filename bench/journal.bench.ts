import type { ApiCall } from '@sdp/core';
import type { WireRequest } from '@sdp/http';
import { RequestJournal } from '../packages/server/src/request-journal.ts';
import { opsPerSecondSync, type BenchReport } from './lib.ts';

/**
 * The request journal's work per call, in one process: noting the answer alone (what the journal did
 * before it kept parameters and positions), the same with the engine's and the HTTP face's hooks (each
 * held in a ring until matched), and the hooks matched through WeakMaps instead, the first version, kept
 * here as the alternative the rings replaced. Each request and call is a fresh object, as on a server.
 */
const headers = { 'X-RateLimit-Cost': '5', 'X-RateLimit-Remaining': '195', 'X-API-Version': '1.5' };
const body = new TextEncoder().encode('{"csdl":"fb.content contains \\"tea\\""}');
const requestHeaders: Record<string, string> = { authorization: 'alice:alice-key-0123', 'content-type': 'application/json' };

function fresh(): { req: WireRequest; call: ApiCall } {
  const req: WireRequest = { method: 'POST', url: '/v1.5/validate', header: (n) => requestHeaders[n], readBody: async () => body, body };
  const call: ApiCall = { version: '1.5', endpoint: 'core.validate', credentials: { username: 'alice', apiKey: 'alice-key-0123' }, params: { csdl: 'fb.content contains "tea"' } };
  return { req, call };
}

export default async function journalBench(): Promise<BenchReport> {
  const ms = Number(process.env.SDP_JOURNAL_BENCH_MS ?? 1500);
  let position = 0;
  const alone = new RequestJournal();
  const noteAlone = opsPerSecondSync(() => {
    const { req } = fresh();
    alone.note(req, { status: 200, headers }, 1);
  }, ms);
  const ringed = new RequestJournal();
  const withHooks = opsPerSecondSync(() => {
    const { req, call } = fresh();
    ringed.wrote(call, ++position, position);
    ringed.called(req, call, { status: 200 });
    ringed.note(req, { status: 200, headers }, 1);
  }, ms);
  const weak = new RequestJournal();
  const calls = new WeakMap<WireRequest, ApiCall>();
  const written = new WeakMap<ApiCall, readonly [number, number]>();
  const withWeakMaps = opsPerSecondSync(() => {
    const { req, call } = fresh();
    written.set(call, [++position, position]);
    calls.set(req, call);
    weak.note(req, { status: 200, headers }, 1);
    const c = calls.get(req);
    if (c !== undefined) written.get(c);
  }, ms);
  const per = (ops: number) => `${((1e6 / ops) * 1000).toFixed(0)} ns`;
  return {
    title: 'Request journal: the work of one call',
    baseline: { name: 'note the answer alone (before parameters and positions)', opsPerSec: noteAlone, extra: { 'per call': per(noteAlone) } },
    subjects: [
      { name: 'note, with the engine\'s and the HTTP face\'s hooks matched through rings', opsPerSec: withHooks, extra: { 'per call': per(withHooks) } },
      { name: 'note, with the hooks matched through WeakMaps (the first version)', opsPerSec: withWeakMaps, extra: { 'per call': per(withWeakMaps) } },
    ],
    notes: ['A charged HTTP call costs about 45 to 60 µs of CPU on this machine (the ratchet\'s rows), so a tenth of a microsecond is out of sight of it; two microseconds would not be.'],
  };
}

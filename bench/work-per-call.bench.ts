import { createEngine, PushDelivery, type EndpointId } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { opsPerSecond, type BenchReport } from './lib.ts';

/**
 * "Bounded by design": a cheap call's time after N and after 10×N interactions were recorded (ingested
 * through a managed source into a recording that a pull and an s3 subscription read), each as a ratio to
 * the same call on an account with nothing recorded, measured in the same run. A call whose work follows
 * what it returns stays near 1× at both sizes; one that scans history falls about tenfold from N to 10×N.
 * N is `SDP_WORK_BENCH_N` (20,000 by default).
 */
const N = Number(process.env.SDP_WORK_BENCH_N ?? 20_000);
const MS = Number(process.env.SDP_WORK_BENCH_MS ?? 1000);
const T0 = Date.parse('2026-03-01T12:00:00Z');
const BATCH = 2_000;

type Call = (endpoint: EndpointId, params?: Record<string, unknown>) => Promise<{ status: number }>;

/** An account with `history` interactions recorded, the pull subscription drained but for a page of 10. */
async function account(history: number): Promise<{ call: Call; pull: string; s3: string; cursor: string }> {
  const time = { now: T0 };
  const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(3) });
  new PushDelivery(engine).connect('s3', { deliver: async () => ({ ok: true }) });
  await engine.openAccount({ username: 'a', api_key: 'a-key-000001', package: { index_capacity_per_month: 1e9, credits_per_hour: 1e9 } });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string) =>
    engine.call({ version: '1.5', endpoint, credentials: { username: 'a', apiKey: 'a-key-000001' }, params, body });
  const hash = ((await call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
  await call('insight.start', { hash, name: 'c', service: 'facebook' });
  const source = ((await call('source.create', { source_type: 'twitter_gnip', name: 'f', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body as { id: string }).id;
  await call('source.start', { id: source });
  const pull = ((await call('push.create', { name: 'p', output_type: 'pull', output_params: { format: 'json_array' }, hash })).body as { id: string }).id;
  const s3 = ((await call('push.create', { name: 's', output_type: 's3', output_params: { bucket: 'b', auth: { access_key: 'k', secret_key: 's' } }, hash })).body as { id: string }).id;
  let k = 0;
  const ingest = async (count: number) => {
    const lines = Array.from({ length: count }, () => JSON.stringify({ interaction: { id: `i${k}` }, fb: { content: `coffee ${k++}`, author: { id: `a${k % 97}` } } }));
    const r = await call('ingest', { source_id: source }, lines.join('\n'));
    if (r.status !== 200) throw new Error(`work-per-call bench: ingestion answered ${r.status}`);
  };
  for (let done = 0; done < history; done += BATCH) {
    await ingest(Math.min(BATCH, history - done));
    time.now += 60_000;
  }
  while ((await call('push.pull', { id: pull })).status === 200);
  await ingest(10);
  const page = await call('push.pull', { id: pull });
  return { call, pull, s3, cursor: page.headers!['X-DataSift-Cursor-Current']! };
}

const CALLS: { name: string; endpoint: EndpointId; params: (a: Awaited<ReturnType<typeof account>>) => Record<string, unknown> }[] = [
  { name: '/pull (a served page of 10, by its cursor)', endpoint: 'push.pull', params: (a) => ({ id: a.pull, cursor: a.cursor }) },
  { name: 'push/get (s3, everything waiting: remaining_bytes)', endpoint: 'push.get', params: (a) => ({ id: a.s3 }) },
  { name: 'push/get (the list)', endpoint: 'push.get', params: () => ({}) },
  { name: '/account/usage (daily, 30 days)', endpoint: 'account.usage', params: () => ({}) },
  { name: '/usage (hour)', endpoint: 'core.usage', params: () => ({}) },
  { name: '/balance', endpoint: 'core.balance', params: () => ({}) },
  { name: 'insight/get (the recordings list, with volumes)', endpoint: 'insight.get', params: () => ({}) },
  { name: 'push/log', endpoint: 'push.log', params: () => ({}) },
];

export default async function workPerCall(): Promise<BenchReport[]> {
  const sizes = [0, N, 10 * N];
  const accounts = [];
  for (const n of sizes) accounts.push(await account(n));
  const reports: BenchReport[] = [];
  for (const c of CALLS) {
    const ops: number[] = [];
    for (const a of accounts) {
      const params = c.params(a);
      if ((await a.call(c.endpoint, params)).status >= 300) throw new Error(`work-per-call bench: ${c.name} failed`);
      ops.push(await opsPerSecond(() => a.call(c.endpoint, params), MS, 10));
    }
    const line = (k: number) => ({ name: `after ${sizes[k]!.toLocaleString('en-US')} interactions`, opsPerSec: ops[k]!, extra: { 'ms/call': (1000 / ops[k]!).toFixed(3) } });
    reports.push({
      title: `Work per call: ${c.name}`,
      baseline: { name: 'on an account with nothing recorded', opsPerSec: ops[0]!, extra: { 'ms/call': (1000 / ops[0]!).toFixed(3) } },
      subjects: [line(1), line(2)],
      goal: { text: `after ${(10 * N).toLocaleString('en-US')} at least half as fast as after ${N.toLocaleString('en-US')} (no tenfold fall)`, met: ops[2]! >= ops[1]! / 2 },
    });
  }
  return reports;
}

/**
 * What one ingestion costs another tenant (issue 35, item 5): an account of the default package
 * subscribes the most stream hashes it has matched (`matchedStreamHashes`, 100) and runs its 10
 * recordings, every filter 1,000 conditions of one operator, then ingests one interaction of the
 * largest allowed size (64 KiB of JSON) while another account calls `/validate` one call after another.
 * Prints the other account's slowest and median call during the ingestion, the ingestion's time, and
 * how long the event loop was held at a time meanwhile (the server runs in this process).
 * `regex` puts each filter at the regular-expression budget instead (six conditions, five of them patterns).
 * `node --conditions=@sdp/source --import tsx bench/matching-latency.ts [near|any|substr|dense-near|pairs-near|regex] [hashes]`
 */
import { request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { DEFAULT_PACKAGE } from '@sdp/core';
import { matchedStreamHashes } from '@sdp/core/internal';
import { defaultSettings } from '../packages/server/src/settings.ts';
import { startServer } from '../packages/server/src/server.ts';

const kind = process.argv[2] ?? 'near';
const hashes = Number(process.argv[3] ?? matchedStreamHashes(DEFAULT_PACKAGE));
const TOKEN = 'bench-token';
const sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:00:00Z'), adminToken: TOKEN, accessLog: 'off' });

/** 1,000 conditions (999 logical operators, the most a definition may have), distinct per filter. */
function filterText(n: number): string {
  const cond = (k: number): string => {
    switch (kind) {
      case 'any':
        return `fb.content contains_any "q${n}r${k} s, t${k} u${n}"`;
      case 'substr':
        return `fb.content substr "q${n}r${k}"`;
      case 'pairs-near': {
        // A different pair of 45 common words in every condition and filter: no span is shared.
        const pair = (n * 1000 + k) % 990;
        let i = 0;
        let left = pair;
        while (left >= 44 - i) left -= 44 - i++;
        return `fb.content contains_near "d${i},d${i + 1 + left}:1"`;
      }
      case 'regex':
        // The regular-expression budget (`FILTER_LIMITS.regexBudget`, 4,000 instructions) in one return block:
        // four `a.{900}b` (904 each) and one `a.{380}b` (384), none of which ever matches the text below.
        return k < 4 ? `fb.content regex_partial "a.{900}b"` : k === 4 ? `fb.content regex_partial "a.{380}b"` : `fb.content contains "q${n}r${k}"`;
      case 'dense-near':
        // Words that occur thousands of times, never close enough.
        return `fb.content contains_near "a,b:${(k % 2) + 1}"`;
      default:
        return `fb.content contains_near "w${k % 500},q${n}r${k}:3"`;
    }
  };
  return Array.from({ length: kind === 'regex' ? 6 : 1000 }, (_, k) => cond(k)).join(' OR ');
}

/** Close to 64 KiB of JSON once mapped. */
const text =
  kind === 'regex'
    ? // One `b` lets every pattern past re2js's prefilter; an `a` every other character keeps hundreds of threads alive.
      'b' + 'ac'.repeat(16_300)
    : kind === 'dense-near'
    ? 'a x x b x x '.repeat(2600)
    : kind === 'pairs-near'
    ? Array.from({ length: 8500 }, (_, k) => `d${k % 45}`).join(' ')
    : Array.from({ length: 6750 }, (_, k) => `w${(k * 37) % 500}`).join(' ');

try {
  const admin = async (method: string, p: string, body?: unknown) =>
    (await fetch(`${sdp.url}/_admin${p}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })).json() as Promise<Record<string, unknown>>;
  const open = async (username: string) => {
    const key = (await admin('POST', '/accounts', { username })).api_key as string;
    const call = async (p: string, params: Record<string, unknown>) => {
      const r = await fetch(`${sdp.url}/v1.5${p}`, { method: 'POST', headers: { authorization: `${username}:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    return { key, call };
  };
  const ada = await open('ada');
  const bob = await open('bob');
  const source = (await ada.call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
  await ada.call('/source/start', { id: source.id });
  const compiled: string[] = [];
  for (let n = 0; n < hashes + DEFAULT_PACKAGE.concurrent_recordings; n++) {
    const r = await ada.call('/compile', { csdl: filterText(n) });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    compiled.push(r.body.hash as string);
    if (process.env.BENCH_DEBUG && n % 10 === 0) console.error('compiled', n);
  }
  for (const hash of compiled.slice(hashes)) {
    const r = await ada.call('/insight/start', { hash, name: hash.slice(0, 8), service: 'facebook' });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
  const ws = new WebSocket(`${sdp.url.replace(/^http/, 'ws')}/multi?username=ada&api_key=${ada.key}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let subscribed = 0;
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { status?: string };
    if (m.status === 'warning') console.error(m);
    if (m.status === 'success') subscribed++;
    for (const w of waiters.splice(0)) w();
  });
  // A connection holds 64 actions waiting: subscribed 50 at a time.
  for (let i = 0; i < hashes; i += 50) {
    for (const hash of compiled.slice(i, Math.min(i + 50, hashes))) ws.send(JSON.stringify({ action: 'subscribe', hash }));
    while (subscribed < Math.min(i + 50, hashes)) await new Promise<void>((r) => waiters.push(r));
  }
  const body = JSON.stringify({ interaction: { id: 'big', content: text }, fb: { content: text } });
  const validate = () => bob.call('/validate', { csdl: 'fb.content contains "x"' });
  const quiet: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await validate();
    quiet.push(performance.now() - t);
  }
  quiet.sort((a, b) => a - b);
  let done = false;
  // How long the event loop was held at a time during the ingestion (the server runs in this process).
  const held = monitorEventLoopDelay({ resolution: 10 });
  held.enable();
  const t0 = performance.now();
  // node:http rather than fetch: an ingestion at the regex budget may take minutes on a loaded machine,
  // past fetch's fixed wait for the response's headers.
  const ingestion = new Promise<{ status: number; ms: number }>((resolve, reject) => {
    const req = request(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `ada:${ada.key}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        done = true;
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  const times: number[] = [];
  // A call the server drops (its keep-alive timer fires late when the loop was held for seconds) counts
  // with the time it took to fail.
  let failed = 0;
  while (!done) {
    const t = performance.now();
    await validate().catch(() => failed++);
    times.push(performance.now() - t);
  }
  const ingested = await ingestion;
  held.disable();
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      operator: kind,
      stream_hashes: hashes,
      recordings: DEFAULT_PACKAGE.concurrent_recordings,
      interaction_bytes: body.length,
      ingestion_status: ingested.status,
      ingestion_ms: Math.round(ingested.ms),
      quiet_median_ms: +quiet[10]!.toFixed(1),
      quiet_max_ms: +quiet.at(-1)!.toFixed(1),
      other_calls: times.length,
      other_failed: failed,
      other_median_ms: +(times[Math.floor(times.length / 2)] ?? 0).toFixed(1),
      other_max_ms: +(times.at(-1) ?? 0).toFixed(1),
      loop_delay_p50_ms: +(held.percentile(50) / 1e6).toFixed(1),
      loop_delay_max_ms: +(held.max / 1e6).toFixed(1),
    }),
  );
  ws.close();
} finally {
  await sdp.close();
}

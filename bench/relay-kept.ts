/**
 * Bytes the store keeps per credit spent on a stream (issue 35): one WebSocket subscription (5 credits)
 * and free ingestion of matching data for `SECONDS` (20) on a SQLite file, the real clock running.
 * `node --conditions=@sdp/source --import tsx bench/relay-kept.ts [credits_per_hour] [seconds]`: the
 * package's `credits_per_hour` (10,000 by default) sets the relay's budget; 1000000000000 makes it
 * unbounded, as the relay was before its budget.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { relayBytesPerWindow } from '@sdp/core/internal';
import { defaultSettings } from '../packages/server/src/settings.ts';
import { startServer } from '../packages/server/src/server.ts';

const credits = Number(process.argv[2] ?? 10_000);
const seconds = Number(process.argv[3] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'sdp-relay-kept-'));
const path = join(dir, 'kept.db');
const fileBytes = (): number => statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
const TOKEN = 'bench-token';
const sdp = await startServer({ ...defaultSettings(), port: 0, store: `sqlite:${path}`, clock: 'system', adminToken: TOKEN, accessLog: 'off' });
try {
  const admin = async (method: string, p: string, body?: unknown) =>
    (await fetch(`${sdp.url}/_admin${p}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })).json() as Promise<Record<string, unknown>>;
  const key = (await admin('POST', '/accounts', { username: 'ada', package: { credits_per_hour: credits } })).api_key as string;
  const call = async (p: string, params: Record<string, unknown>) =>
    (await fetch(`${sdp.url}/v1.5${p}`, { method: 'POST', headers: { authorization: `ada:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) })).json() as Promise<Record<string, unknown>>;
  const source = await call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] });
  await call('/source/start', { id: source.id });
  const hash = (await call('/compile', { csdl: 'fb.content contains "coffee"' })).hash as string;
  const remainingBefore = ((await admin('GET', '/accounts/ada')).allowances as { general: { remaining: number } }).general.remaining;
  const ws = new WebSocket(`${sdp.url.replace(/^http/, 'ws')}/multi?username=ada&api_key=${key}`);
  let received = 0;
  let warnings = 0;
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const subscribed = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Record<string, unknown>;
      if (m.status === 'success') resolve();
      if (m.status === 'warning') warnings++;
      if (m.data) received++;
    });
  });
  ws.send(JSON.stringify({ action: 'subscribe', hash }));
  await subscribed;
  const spent = remainingBefore - ((await admin('GET', '/accounts/ada')).allowances as { general: { remaining: number } }).general.remaining;
  const before = fileBytes();
  const text = 'coffee ' + 'x'.repeat(4000);
  const body = Array.from({ length: 50 }, (_, i) => JSON.stringify({ interaction: { id: `i${i}`, content: text, type: 'twitter_gnip' }, fb: { content: text } })).join('\n');
  const end = Date.now() + seconds * 1000;
  let sent = 0;
  while (Date.now() < end) {
    const r = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `ada:${key}` }, body });
    await r.text();
    if (r.status === 200) sent += body.length;
  }
  await sdp.streams.caughtUp();
  const grown = fileBytes() - before;
  const perCredit = grown / Math.max(1, spent);
  console.log(
    JSON.stringify({
      credits_per_hour: credits,
      relay_bytes_per_minute: relayBytesPerWindow({ credits_per_hour: credits }),
      seconds,
      ingested_mb: +(sent / 1e6).toFixed(1),
      store_grew_mb: +(grown / 1e6).toFixed(2),
      file_mb: +(statSync(path).size / 1e6).toFixed(2),
      wal_mb: existsSync(`${path}-wal`) ? +(statSync(`${path}-wal`).size / 1e6).toFixed(2) : 0,
      credits_spent: spent,
      bytes_kept_per_credit: Math.round(perCredit),
      interactions_received: received,
      warnings,
    }),
  );
  ws.close();
} finally {
  await sdp.close();
  rmSync(dir, { recursive: true, force: true });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startPushReceiver, type PushReceiver } from '../test/push-receiver.ts';
import { listeningUrl } from '../test/listening-url.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-push-crash-'));
const children: ChildProcess[] = [];
const TOKEN = 'crash-token';
const S0 = Math.floor(Date.parse('2026-03-02T08:00:00Z') / 1000);
let rx: PushReceiver | undefined;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await rx?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `sdp serve` as its own process over one SQLite file, on the manual clock. */
async function serve(clockStart: number): Promise<{ child: ChildProcess; url: string }> {
  // Node itself with tsx as a loader (not the tsx launcher, which runs the server as a child that SIGKILL would miss).
  const args = ['--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0', '--store', `sqlite:${join(dir, 'sdp.db')}`, '--clock', 'manual', '--clock-start', String(clockStart), '--admin-token', TOKEN, '--access-log', 'off'];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, SDP_PUSH_ALLOWED_HOSTS: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const { url } = await listeningUrl(child);
  return { child, url };
}

// eslint-disable-next-line
type Json = any;

describe('push delivery across a crash', () => {
  it('SIGKILL while a batch is on its way: after a restart the receiver has every acknowledged interaction, the interrupted batch again under the same id', async () => {
    rx = await startPushReceiver();
    let a = await serve(S0);
    const admin = (path: string, body: unknown) =>
      fetch(`${a.url}/_admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { api_key: key } = (await (await admin('/accounts', { username: 'crash' })).json()) as Json;
    const call = async (path: string, body: string): Promise<Json> => {
      const r = await fetch(`${a.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `crash:${key}`, 'content-type': 'application/json' }, body });
      expect(r.status, `${path}: ${r.status}`).toBeLessThan(300);
      return r.json();
    };
    const { hash } = await call('/insight/compile', JSON.stringify({ csdl: 'fb.content contains "coffee"' }));
    await call('/insight/start', JSON.stringify({ hash, name: 'coffee', service: 'facebook' }));
    const source = await call('/source/create', JSON.stringify({ source_type: 'twitter_gnip', name: 'f', resources: [{ parameters: { mapping: 'gnip_1' } }] }));
    await call('/source/start', JSON.stringify({ id: source.id }));
    const acknowledged: string[] = [];
    for (let k = 0; k < 20; k++) acknowledged.push(`c${k}`);
    await call(`/ingest/${source.id}`, acknowledged.map((id) => JSON.stringify({ interaction: { id }, fb: { content: `coffee ${id}` } })).join('\n'));
    await call('/push/create', JSON.stringify({ name: 'crash', output_type: 'http', hash, output_params: { url: rx.url, format: 'json_array', delivery_frequency: 1, max_size: 200 } }));

    // Some batches arrive and are acknowledged; then the receiver holds a request and the server dies mid-delivery.
    expect((await admin('/clock', { advance_ms: 2_000 })).status).toBe(200);
    const before = rx.received.filter((r) => r.headers['x-sdp-ping'] === undefined).length;
    expect(before).toBeGreaterThan(0);
    rx.mode = 'hang';
    const moving = admin('/clock', { advance_ms: 60_000 }).catch(() => undefined);
    while (rx.received.filter((r) => r.headers['x-sdp-ping'] === undefined).length === before) await new Promise((r) => setTimeout(r, 20));
    const interrupted = rx.received.at(-1)!;
    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    await moving;

    rx.mode = 200;
    a = await serve(S0 + 120);
    expect((await admin('/clock', { advance_ms: 120_000 })).status).toBe(200);
    const batches = rx.received.filter((r) => r.headers['x-sdp-ping'] === undefined);
    const after = batches.slice(before + 1);
    expect(after[0]!.headers['x-sdp-delivery-id']).toBe(interrupted.headers['x-sdp-delivery-id']);
    expect(after[0]!.body).toBe(interrupted.body);
    const got = new Set(batches.flatMap((r) => (JSON.parse(r.body) as Json[]).map((i) => i.interaction.id)));
    expect(acknowledged.filter((id) => !got.has(id))).toEqual([]);
    a.child.kill('SIGKILL');
  }, 60_000);
});

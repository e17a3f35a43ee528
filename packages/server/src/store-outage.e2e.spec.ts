import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '@sdp/store-postgres';
import { defaultSettings } from './settings.ts';
import { startServer } from './server.ts';

const url = process.env.SDP_TEST_POSTGRES;
const schema = `sdp_test_outage_${process.pid}`;
const TOKEN = 'operator-token-for-tests';

/** The database server as the API server sees it: a TCP relay that can go away and come back on its port. */
class Relay {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async up(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }
  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

describe.skipIf(!url)('PostgreSQL going away under load (a real socket, a real database)', () => {
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url!, { schema });
    await store.drop();
    await store.close();
  });

  it('answers 503 with Retry-After meanwhile, charges nothing, recovers, and logs one line each way', async () => {
    const target = new URL(url!);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.up();
    const through = new URL(url!);
    through.port = String(relay.port);
    through.searchParams.set('schema', schema);
    const away: unknown[] = [];
    let back = 0;
    const errors: unknown[] = [];
    const sdp = await startServer(
      { ...defaultSettings(), port: 0, store: through.toString(), clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: TOKEN, accessLog: 'off' },
      { onError: (e) => errors.push(e), onStoreAway: (e) => away.push(e), onStoreBack: () => back++ },
    );
    try {
      const opened = await fetch(`${sdp.url}/_admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'loaded', package: { credits_per_hour: 1_000_000 } }) });
      const { api_key } = (await opened.json()) as { api_key: string };
      const call = () => fetch(`${sdp.url}/v1.5/balance`, { headers: { authorization: `loaded:${api_key}` } });

      // Load from four clients; the database goes away in the middle of it and comes back.
      let stop = false;
      const seen: Array<{ status: number; retryAfter: string | null }> = [];
      const worker = async () => {
        while (!stop) {
          const r = await call();
          seen.push({ status: r.status, retryAfter: r.headers.get('retry-after') });
          await r.arrayBuffer();
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      while (seen.length < 40) await new Promise((r) => setTimeout(r, 5));
      await relay.down();
      const cutAt = seen.length;
      while (seen.slice(cutAt).filter((s) => s.status === 503).length < 40) await new Promise((r) => setTimeout(r, 5));
      await relay.up();
      // Recovery: wait for a run of successes after the return.
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !seen.slice(-20).every((s) => s.status === 200)) await new Promise((r) => setTimeout(r, 20));
      stop = true;
      await Promise.all(workers);

      const statuses = new Set(seen.map((s) => s.status));
      expect([...statuses].sort()).toEqual([200, 503]);
      for (const s of seen) if (s.status === 503) expect(s.retryAfter).toBe('5');
      expect(seen.slice(-20).every((s) => s.status === 200)).toBe(true);
      expect(away).toHaveLength(1);
      expect(back).toBe(1);
      expect(errors).toEqual([]);

      // Nothing charged for the 503s: what was used is the answered calls' cost (a call cut between its
      // commit and its answer, at most one per client, may have landed).
      const view = (await (await fetch(`${sdp.url}/_admin/accounts/loaded`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { allowances: { general: { limit: number; remaining: number } } };
      const used = view.allowances.general.limit - view.allowances.general.remaining;
      const ok = seen.filter((s) => s.status === 200).length;
      expect(used).toBeGreaterThanOrEqual(ok * 25);
      expect(used).toBeLessThanOrEqual((ok + 4) * 25);
    } finally {
      await sdp.close();
      await relay.down().catch(() => {});
    }
  }, 60_000);

  it('with the keepers running on the system clock (a firehose on, push subscriptions), an outage is still one line each way', async () => {
    const target = new URL(url!);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.up();
    const through = new URL(url!);
    through.port = String(relay.port);
    through.searchParams.set('schema', `${schema}_keepers`);
    const away: unknown[] = [];
    let back = 0;
    const errors: unknown[] = [];
    const sdp = await startServer(
      { ...defaultSettings(), port: 0, store: through.toString(), clock: 'system', adminToken: TOKEN, accessLog: 'off' },
      { onError: (e) => errors.push(e), onStoreAway: (e) => away.push(e), onStoreBack: () => back++ },
    );
    try {
      const admin = (method: string, path: string, body?: unknown) =>
        fetch(`${sdp.url}/_admin${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const { api_key } = (await (await admin('POST', '/accounts', { username: 'fed' })).json()) as { api_key: string };
      const call = (path: string, params: Record<string, unknown>) =>
        fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `fed:${api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) }).then((r) => r.json() as Promise<{ hash: string }>);
      const { hash } = await call('/insight/compile', { csdl: 'fb.content contains "coffee"' });
      await call('/insight/start', { hash, name: 'coffee', service: 'facebook' });
      await call('/push/create', { name: 'p', output_type: 'pull', hash });
      expect((await admin('POST', '/accounts/fed/firehose', { per_minute: 60 })).status).toBe(200);

      // The database away for six seconds: six push rounds and a firehose round or more meet it.
      await relay.down();
      await new Promise((r) => setTimeout(r, 6_000));
      await relay.up();
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && back === 0) await new Promise((r) => setTimeout(r, 100));

      expect(away).toHaveLength(1);
      expect(back).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await sdp.close();
      await relay.down().catch(() => {});
      const store = await PostgresEventStore.connect(url!, { schema: `${schema}_keepers` });
      await store.drop();
      await store.close();
    }
  }, 60_000);
});

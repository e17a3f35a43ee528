import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabase, testSchema } from '../../store-postgres/test/test-database.ts';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer } from './server.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'idem-token';
const KEY = '0123456789abcdef0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'sdp-idem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const accountsFile = join(dir, 'accounts.json');
writeFileSync(accountsFile, JSON.stringify([{ username: 'retry', api_key: KEY }]));

const settings = (over: Partial<ServerSettings>): ServerSettings => ({
  ...defaultSettings(), port: 0, clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off', accountsFile, ...over,
});
const compile = (url: string, csdl: string, key: string) =>
  fetch(`${url}/v1.5/compile`, { method: 'POST', headers: { authorization: `retry:${KEY}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ csdl }) });
const remaining = async (url: string): Promise<number> =>
  ((await (await fetch(`${url}/_admin/accounts/retry`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { allowances: { general: { remaining: number } } }).allowances.general.remaining;

describe('Idempotency-Key over HTTP', () => {
  it('replays with Idempotent-Replayed: true after a restart on SQLite, and the manual clock expires the key', async () => {
    const store = `sqlite:${join(dir, 'idem.db')}`;
    const first = await startServer(settings({ store }));
    const a = await compile(first.url, 'fb.content contains "x"', 'order-1');
    expect(a.status).toBe(200);
    const aBody = await a.text();
    await first.close();

    const second = await startServer(settings({ store }));
    try {
      const b = await compile(second.url, 'fb.content contains "x"', 'order-1');
      expect(b.status).toBe(200);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.headers.get('x-ratelimit-remaining')).toBe(a.headers.get('x-ratelimit-remaining'));
      expect(await b.text()).toBe(aBody);
      expect(await remaining(second.url)).toBe(10000 - 5);
      expect((await compile(second.url, 'fb.content contains "y"', 'order-1')).status).toBe(422);
      await fetch(`${second.url}/_admin/clock`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ advance_ms: 24 * 3600_000 }) });
      const fresh = await compile(second.url, 'fb.content contains "y"', 'order-1');
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await second.close();
    }
  });

  it('a GET ignores the header', async () => {
    const sdp = await startServer(settings({ store: 'memory:' }));
    try {
      const get = () => fetch(`${sdp.url}/v1.5/usage`, { headers: { authorization: `retry:${KEY}`, 'idempotency-key': 'g' } });
      expect((await get()).headers.get('idempotent-replayed')).toBeNull();
      expect((await get()).headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await sdp.close();
    }
  });
});

const db = await testDatabase();
describe.skipIf('skip' in db)('Idempotency-Key across two server processes on PostgreSQL', () => {
  const cli = join(import.meta.dirname, 'cli.ts');
  const children: ChildProcess[] = [];
  const schema = testSchema('idem');
  afterAll(async () => {
    for (const c of children) c.kill('SIGTERM');
    const client = new pg.Client({ connectionString: (db as { url: string }).url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  const serve = (store: string) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', cli, 'serve', '--port', '0', '--store', store, '--admin-token', TOKEN, '--accounts', accountsFile, '--access-log', 'off'], {
        cwd: join(import.meta.dirname, '..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
    });

  it('one process executes, the other replays; a race between them executes once', async () => {
    const url = (db as { url: string }).url;
    const store = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
    const first = await serve(store);
    const [a, b] = [first, await serve(store)];
    const r1 = await compile(a, 'fb.content contains "p"', 'k-1');
    const r2 = await compile(b, 'fb.content contains "p"', 'k-1');
    expect(r1.status).toBe(200);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(await r2.text()).toBe(await r1.text());
    const before = await remaining(a);

    const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => compile(i % 2 ? a : b, 'fb.content contains "q"', 'k-race')));
    const statuses = raced.map((r) => r.status);
    // Each answer is the one execution, replayed, or a 409 from the process still running it.
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(raced.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null).length).toBe(1);
    expect(await remaining(b)).toBe(before - 5);
  }, 60_000);
});

import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { NewEvent } from '@sdp/core';
import { PostgresEventStore, StoreUnavailable } from './postgres-store.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { testDatabase, testSchema } from './test-database.ts';

const db = await testDatabase();
const schema = testSchema('away');
const ev = (i: number): NewEvent => ({ id: `e${i}`, type: 'Happened', data: { i }, time: 1_700_000_000_000 + i });

/**
 * The database server as the store sees it: a TCP relay to the real server that can go away (every
 * connection cut, the port closed) and come back on the same port.
 */
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
      client.pipe(upstream).pipe(client);
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

describe.skipIf('skip' in db)('a PostgreSQL server that goes away and comes back', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it('answers StoreUnavailable naming the server meanwhile, loses nothing acknowledged, and recovers', async () => {
    const target = new URL(url);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.up();
    const through = new URL(url);
    through.port = String(relay.port);
    const store = await PostgresEventStore.connect(through.toString(), { schema, connectTimeoutMs: 1000 });
    await store.clear();
    await store.append([{ stream: 's', expectedVersion: 0, events: [ev(1), ev(2)] }]);

    await relay.down();
    const write = store.append([{ stream: 's', expectedVersion: 2, events: [ev(3)] }]);
    await expect(write).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(write).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${relay.port}.*unreachable`));
    await expect(store.readStream('s')).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.head()).rejects.toThrow(/unreachable/);

    await relay.up();
    // The refused write did not land (the relay was closed before it was sent), so version 2 still holds.
    expect(await store.append([{ stream: 's', expectedVersion: 2, events: [ev(4)] }])).toEqual({ versions: [3], lastPosition: 3 });
    expect((await store.readStream('s')).map((e) => e.id)).toEqual(['e1', 'e2', 'e4']);

    // Down again while idle connections sit in the pool: they are dropped, not fatal, and replaced.
    await relay.down();
    await new Promise((r) => setTimeout(r, 50));
    await relay.up();
    expect(await store.head()).toBe(3);
    await store.close();
    await relay.down();
  });

  it('cannot connect at all: a clear error naming the server', async () => {
    const relay = new Relay({ host: '127.0.0.1', port: 1 });
    await relay.up();
    const port = relay.port;
    await relay.down();
    const nowhere = new URL(url);
    nowhere.port = String(port);
    await expect(PostgresEventStore.connect(nowhere.toString(), { schema, connectTimeoutMs: 1000 })).rejects.toThrow(
      new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port}.*unreachable`),
    );
  });

  it('refuses a store written by a newer build', async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.close();
    const client = new pg.Client(url);
    await client.connect();
    await client.query(`UPDATE "${schema}".sdp_meta SET value = $1 WHERE key = 'schema_version'`, [String(SCHEMA_VERSION + 3)]);
    await client.end();
    await expect(PostgresEventStore.connect(url, { schema })).rejects.toThrow(/newer than this build/);
    const fix = new pg.Client(url);
    await fix.connect();
    await fix.query(`UPDATE "${schema}".sdp_meta SET value = $1 WHERE key = 'schema_version'`, [String(SCHEMA_VERSION)]);
    await fix.end();
  });
});

if ('skip' in db) console.warn(db.skip);

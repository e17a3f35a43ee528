import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { VersionConflict, type NewEvent } from '@sdp/core/kernel';
import { PostgresEventStore, StoreUnavailable } from './postgres-store.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

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
  /** Cut the connection carrying the next append: before the server gets it, or once it has answered. */
  cutNextAppend: 'before' | 'after' | undefined;
  constructor(private readonly target: { host: string; port: number }) {}

  async up(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      let cutOnAnswer = false;
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk: Buffer) => {
        if (this.cutNextAppend && chunk.includes('sdp_append')) {
          const when = this.cutNextAppend;
          this.cutNextAppend = undefined;
          if (when === 'before') return cut();
          cutOnAnswer = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => (cutOnAnswer ? cut() : client.write(chunk)));
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

  it('a connection lost while an append is in flight: once the server answers, the append is known written or not', async () => {
    const target = new URL(url);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.up();
    const through = new URL(url);
    through.port = String(relay.port);
    const store = await PostgresEventStore.connect(through.toString(), { schema, connectTimeoutMs: 1000 });
    await store.clear();
    await store.append([{ stream: 't', expectedVersion: 0, events: [ev(1)] }]);

    // Cut after the server committed and answered: the answer is lost, the write is not.
    relay.cutNextAppend = 'after';
    expect(await store.append([{ stream: 't', expectedVersion: 1, events: [ev(2), ev(3)] }, { stream: 'u', expectedVersion: 0, events: [ev(4)] }])).toEqual({
      versions: [3, 1],
      lastPosition: 4,
    });
    // Cut before the server got it: nothing was written, and the caller is told so.
    relay.cutNextAppend = 'before';
    await expect(store.append([{ stream: 't', expectedVersion: 3, events: [ev(5)] }])).rejects.toThrow(/nothing was written/);
    // Cut after a group in which one request conflicted: the conflict is still reported as such.
    relay.cutNextAppend = 'after';
    const [ok, conflict] = await Promise.allSettled([
      store.append([{ stream: 't', expectedVersion: 3, events: [ev(6)] }]),
      store.append([{ stream: 'u', expectedVersion: 0, events: [ev(7)] }]),
    ]);
    expect(ok).toEqual({ status: 'fulfilled', value: { versions: [4], lastPosition: 5 } });
    expect((conflict as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
    expect((await store.readAll()).map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e6']);
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

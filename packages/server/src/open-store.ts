import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { forgettableCharge } from '@sdp/core';
import { MemoryEventStore, type EventStore } from '@sdp/core/kernel';

export interface OpenedStore {
  store: EventStore;
  /** What the server prints: `memory`, `sqlite /abs/path`, `postgres host/db`. */
  description: string;
}

/**
 * Opens the store a `--store` URL names. The durable adapters are imported only when asked for, so a
 * memory server needs neither native SQLite nor a PostgreSQL driver.
 */
export async function openStore(url: string): Promise<OpenedStore> {
  // Bounded on a long run: charges a snapshot covers are forgotten (docs/security.md).
  if (url === 'memory:') return { store: new MemoryEventStore({ compactable: forgettableCharge }), description: 'memory (nothing kept after exit)' };
  if (url.startsWith('sqlite:')) {
    const path = resolve(url.slice('sqlite:'.length));
    mkdirSync(dirname(path), { recursive: true });
    const { openSqliteStore } = await import('@sdp/store-sqlite');
    return { store: await openSqliteStore(path), description: `sqlite ${path}` };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    // An optional peer of @sdp/server: only a PostgreSQL store needs it (and pg).
    let postgres: typeof import('@sdp/store-postgres');
    try {
      postgres = await import('@sdp/store-postgres');
    } catch (error) {
      throw new Error(`a postgres:// store needs the @sdp/store-postgres package installed beside @sdp/server (${(error as Error).message})`);
    }
    const { connectPostgresStore } = postgres;
    const shown = url.replace(/\/\/[^@/]*@/, '//');
    return { store: await connectPostgresStore(url), description: `postgres ${shown}` };
  }
  throw new Error(`unknown store ${url}`);
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRaceHeldOverConnections, readGuardRace } from '@sdp/testing';
import { SqliteEventStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-guards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('read guards and pipelined lanes on one SQLite file', () => {
  it('two engines over two connections (as two processes under --workers), each pipelining an account\'s calls: package changes, denials, identity limits and deleted queries racing the calls that read them never leave a decision taken on a stale state', { timeout: 60_000 }, async () => {
    const file = join(dir, 'race.db');
    const a = new SqliteEventStore(file);
    const b = new SqliteEventStore(file);
    try {
      // Both engines pipeline (the store checks the last event id a pending decision expects).
      expect(a.capabilities.checksLastEventId && b.capabilities.checksLastEventId).toBe(true);
      expectRaceHeldOverConnections(await readGuardRace({ a, b }, { seed: 11 }));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

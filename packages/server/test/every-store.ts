import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { PostgresEventStore } from '@sdp/store-postgres';

/**
 * The stores a test runs on, as `[name, url]` for `describe.each`: memory, a SQLite file in a fresh folder,
 * and a PostgreSQL schema of its own when `SDP_TEST_POSTGRES` names a server (the URL is `undefined`
 * otherwise: skip that case). The folder and the schema are removed after the file's tests.
 */
export function everyStore(name: string): Array<[string, string | undefined]> {
  const dir = mkdtempSync(join(tmpdir(), `sdp-${name}-`));
  const pgUrl = process.env.SDP_TEST_POSTGRES;
  const schema = `sdp_test_${name.replace(/\W/g, '_')}_${process.pid}`;
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (pgUrl) {
      const store = await PostgresEventStore.connect(pgUrl, { schema });
      await store.drop();
      await store.close();
    }
  });
  return [
    ['memory', 'memory:'],
    ['SQLite', `sqlite:${join(dir, `${name}.db`)}`],
    ['PostgreSQL', pgUrl ? `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}` : undefined],
  ];
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { hostLivenessContract, storeContract } from '@sdp/testing';
import { openSqliteStore, type SqliteEventStore } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

storeContract('SQLite store on a file', () => openSqliteStore(join(dir, `nested/folder/store-${++n}.db`)), {
  opensAgain: (store) => openSqliteStore((store as SqliteEventStore).path),
});
storeContract('SQLite store in memory', () => openSqliteStore(':memory:'));
hostLivenessContract('SQLite store on a file', () => openSqliteStore(join(dir, `liveness-${++n}.db`)), (store) => openSqliteStore((store as SqliteEventStore).path));

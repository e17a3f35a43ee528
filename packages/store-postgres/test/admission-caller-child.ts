/**
 * One server process on a shared PostgreSQL store: `node --import tsx test/admission-caller-child.ts URL SCHEMA CALLERS`.
 * Prints `ready`, waits for `go` on stdin, then runs CALLERS concurrent callers of `core.balance` on the
 * account `near-limit` until each is refused, printing `ack STATUS LIMIT REMAINING COST` per answer.
 */
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Engine } from '@sdp/core';
import { fixedClock } from '@sdp/core/kernel';
import { randomIds } from '@sdp/clock';
import { connectPostgresStore } from '../src/postgres-store.ts';
import { ADMISSION_ACCOUNT, ADMISSION_TIME, admissionHandlers } from './near-limit.ts';

const [url, schema, callers] = process.argv.slice(2);
const store = await connectPostgresStore(url!, { schema: schema! });
const engine = new Engine({ store, clock: fixedClock(ADMISSION_TIME), ids: randomIds(), handlers: admissionHandlers, settings: { maxAttempts: 10_000 } });
writeSync(1, 'ready\n');
await new Promise<void>((go) => createInterface({ input: process.stdin }).on('line', (l) => l === 'go' && go()));

async function caller(): Promise<void> {
  for (;;) {
    const a = await engine.call({
      version: '1.5',
      endpoint: 'core.balance',
      credentials: { username: ADMISSION_ACCOUNT.username, apiKey: ADMISSION_ACCOUNT.api_key },
    });
    writeSync(1, `ack ${a.status} ${a.rate?.limit} ${a.rate?.remaining} ${a.rate?.cost} ${a.rate?.reset} ${a.rate?.resetTtl}\n`);
    if (a.status !== 200) return;
  }
}

await Promise.all(Array.from({ length: Number(callers) }, caller));
await store.close();
process.exit(0);

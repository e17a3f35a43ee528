import { createEngine } from '@sdp/core';
import { StreamCalls } from '@sdp/core/internal';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { consoleReadRoutes } from '../packages/server/src/console/console-reads.ts';
import { WriteLog } from '../packages/server/src/console/write-log.ts';
import { opsPerSecond, type BenchReport } from './lib.ts';

const ACCOUNTS = 100;

/**
 * Issue 14's measure: the console polls `GET /_admin/accounts` once a second per open page. One poll over
 * 100 accounts (each charged a few times) beside the bare account views the list is built on: the
 * ratio is what the gauges (recent charges, task queues, today's capacity) add.
 */
export default async function consoleBench(): Promise<BenchReport> {
  const clock = new ManualClock(Date.parse('2026-03-02T08:05:37Z'));
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(7) });
  const names: string[] = [];
  const stream = new StreamCalls(engine);
  for (let i = 0; i < ACCOUNTS; i++) {
    const username = `acct${i}`;
    names.push(username);
    await engine.openAccount({ username });
    for (let c = 0; c < 5; c++) await stream.charge(username, 5);
  }
  const list = consoleReadRoutes(engine, clock, new WriteLog()).find((r) => r.method === 'GET' && r.path.join('/') === 'accounts')!;
  const views = await opsPerSecond(async () => {
    for (const u of names) await engine.accountView(u);
  }, 1500, 1);
  let bad = 0;
  const polls = await opsPerSecond(async () => {
    const answer = await list.run({ params: [], body: {}, query: new URLSearchParams(), text: '' } as never);
    if (answer.status !== 200) bad++;
  }, 1500, 1);
  if (bad > 0) throw new Error(`console bench: ${bad} polls failed`);
  return {
    title: `console: one GET /_admin/accounts poll over ${ACCOUNTS} accounts (memory store)`,
    baseline: { name: `engine.accountView of each of the ${ACCOUNTS} accounts`, opsPerSec: views },
    subjects: [{ name: 'the accounts list with gauges, as JSON', opsPerSec: polls, extra: { 'ms per poll': (1000 / polls).toFixed(2) } }],
  };
}

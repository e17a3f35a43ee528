/**
 * How soon another process hears a commit: two handles on one PostgreSQL schema, as two server
 * processes hold them (each its own pool, and its own LISTEN connection); one appends, and the time
 * from the append's answer to the other's `watchCommits` listener running is taken, `ROUNDS` times,
 * at random moments (a poll would be met at any point of its period).
 *
 * `node --conditions=@sdp/source --import tsx bench/contention-notice.ts POSTGRES_URL [ROUNDS]`
 */
import { ANY_VERSION, type EventStore } from '@sdp/core/kernel';
import { PostgresEventStore } from '@sdp/store-postgres';

export async function measureNotice(url: string, rounds: number, open: (url: string) => Promise<EventStore> = (u) => PostgresEventStore.connect(u)): Promise<{ rounds: number; p50Ms: number; p99Ms: number; maxMs: number }> {
  const writer = await open(url);
  const watcher = await open(url);
  await writer.clear();
  let heard: (() => void) | undefined;
  const stop = watcher.watchCommits(() => heard?.());
  // The first notice (LISTEN taking effect, or the poll's first answer) is not a commit's.
  await new Promise((r) => setTimeout(r, 300));
  const times: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 200));
      const notice = new Promise<number>((r) => (heard = () => r(performance.now())));
      await writer.append([{ stream: `n${i}`, expectedVersion: ANY_VERSION, events: [{ id: `n${i}-${Date.now()}`, type: 'Noticed', data: {}, time: Date.now() }] }]);
      const answered = performance.now();
      times.push(Math.max(0, (await notice) - answered));
      heard = undefined;
    }
  } finally {
    stop();
    await Promise.all([writer.close(), watcher.close()]);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]! * 100) / 100;
  return { rounds, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

if (process.argv[1]?.endsWith('contention-notice.ts')) {
  const [url, rounds] = process.argv.slice(2);
  console.log(JSON.stringify(await measureNotice(url!, Number(rounds ?? 50))));
}

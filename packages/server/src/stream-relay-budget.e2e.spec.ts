/**
 * The relay's byte budget over a real server on a SQLite file (issue 35): an account that ingests far
 * more matching data than its package may relay, with a WebSocket subscriber connected, grows the file
 * by at most its budget (plus what ingestion itself writes), the ingestion still succeeds, and the
 * subscriber is warned of what was dropped.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { relayBytesPerWindow, matchedStreamHashes } from '@sdp/core/internal';
import { account, start, stopAll, WsClient, wsUrl, type Json } from '../test/stream-kit.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-relay-'));
afterEach(stopAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the store occupies on disk: the file and its write-ahead log. */
const fileBytes = (path: string): number => statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

describe('the relay of matches', () => {
  it("keeps at most the account's budget of matches however much matching data it ingests, and warns the subscriber", async () => {
    const path = join(dir, 'relay.db');
    const sdp = await start({ store: `sqlite:${path}` });
    // A small package: 1,000 credits an hour may relay 1,024,000 bytes a minute.
    const pkg = { credits_per_hour: 1000 };
    const budget = relayBytesPerWindow(pkg);
    const ada = await account(sdp, 'ada', pkg);
    const hash = await ada.compile('fb.content contains "coffee"');
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    await client.until((m: Json) => m.status === 'success');
    const before = fileBytes(path);

    // 8 times the budget, in requests of 50 interactions of about 4 KB (the manual clock stands: one window).
    const text = 'coffee ' + 'x'.repeat(4000);
    const requests = Math.ceil((8 * budget) / (50 * 2 * text.length));
    for (let r = 0; r < requests; r++) await ada.ingest(Array.from({ length: 50 }, () => text));
    await sdp.streams.caughtUp();
    const grown = fileBytes(path) - before;

    const [warning] = await client.until((m: Json) => m.status === 'warning');
    expect(warning).toMatchObject({ status: 'warning', hash });
    expect(warning.message).toContain('were dropped');
    const delivered = client.messages.filter((m: Json) => m.hash === hash && m.data).length;
    const ingested = requests * 50;
    // Ingestion succeeded for all of it; the relay carried what fits one window's budget, no more.
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(ingested / 4);
    expect(delivered * 2 * text.length).toBeLessThanOrEqual(budget);
    // What ingestion writes besides the relay: an `IngestionAdmitted` a request, and SQLite's pages and
    // log around them: well under 2 MiB here. Without the budget this grew by the whole 8 × budget.
    console.log(`relay budget e2e: ingested ${((ingested * 2 * text.length) / 1e6).toFixed(1)} MB, store grew ${(grown / 1e6).toFixed(2)} MB (budget ${(budget / 1e6).toFixed(2)} MB a minute), delivered ${delivered}`);
    expect(grown).toBeLessThan(budget + 2 * 1024 * 1024);
    client.ws.close();
  }, 120_000);

  it("matches an interaction against at most the package's figure of stream hashes, and warns the subscriber of the others", async () => {
    const sdp = await start();
    const pkg = { concurrent_recordings: 1 };
    const limit = matchedStreamHashes(pkg);
    const ada = await account(sdp, 'ada', pkg);
    const hashes: string[] = [];
    for (let i = 0; i <= limit; i++) hashes.push(await ada.compile(`fb.content contains "coffee" OR fb.content contains "w${i}"`));
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    for (const hash of hashes) client.send({ action: 'subscribe', hash });
    await client.until((m: Json) => m.status === 'success', hashes.length);
    await ada.ingest(['coffee']);
    await sdp.streams.caughtUp();
    // The one past the figure in hash order is the one not matched.
    const skipped = [...hashes].sort()[limit]!;
    const [warning] = await client.until((m: Json) => m.status === 'warning');
    expect(warning).toMatchObject({ status: 'warning', hash: skipped });
    expect(warning.message).toContain('is not being matched');
    const data = await client.until((m: Json) => m.data !== undefined, limit);
    expect(new Set(data.map((m: Json) => m.hash))).toEqual(new Set(hashes.filter((h) => h !== skipped)));
    // Said once a minute: a second ingestion matches the same and warns no more.
    await ada.ingest(['coffee']);
    await sdp.streams.caughtUp();
    await client.until((m: Json) => m.data !== undefined, 2 * limit);
    expect(client.messages.filter((m: Json) => m.status === 'warning')).toHaveLength(1);
    client.ws.close();
  }, 60_000);
});

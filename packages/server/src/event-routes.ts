import { DomainError, type Engine } from '@sdp/core';
import type { WireResponse } from '@sdp/http';
import { exportEvents, importEvents, parseEventLines } from './event-log.ts';
import { onlyUntouchedDemo } from './demo-account.ts';
import type { FirehoseKeeper } from './firehose-keeper.ts';
import type { OperatorRoute } from './operator-api.ts';

export const NDJSON_TYPE = 'application/x-ndjson';
/** An import carries a whole log; the API's 4 MB body limit is for calls. */
const IMPORT_LIMIT = 512 * 1024 * 1024;

function wholeNumber(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new DomainError(400, `${name} must be a whole number, 0 or more`);
  return Number(raw);
}

/** Lines gathered into chunks of about 64 KiB, so a long log is not one socket write per event. */
async function* chunked(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let chunk = '';
  for await (const line of lines) {
    chunk += line + '\n';
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * Portable state (docs/contract.md#toolbox): `GET /_admin/events?after=POS&limit=N` exports the log as NDJSON in
 * global order; `POST /_admin/events` imports such a stream into an empty store.
 */
/**
 * `reset` empties the store and what the server keeps beside it (the operator's reset): an import into a
 * store holding only the untouched demo account of a first start runs it first.
 */
export function eventRoutes(engine: Engine, firehoses?: FirehoseKeeper, reset?: () => Promise<void>): OperatorRoute[] {
  return [
    {
      method: 'GET',
      path: ['events'],
      run: async ({ query }): Promise<WireResponse> => {
        const after = wholeNumber(query, 'after') ?? 0;
        const limit = wholeNumber(query, 'limit');
        return { status: 200, headers: { 'Content-Type': NDJSON_TYPE }, stream: chunked(exportEvents(engine.store, after, limit)) };
      },
    },
    {
      method: 'POST',
      path: ['events'],
      raw: true,
      bodyLimit: IMPORT_LIMIT,
      run: async ({ text }): Promise<WireResponse> => {
        const events = parseEventLines(text);
        // A fresh server opened the demo account at start; nobody used it, so it does not stand in the way.
        if (reset && (await onlyUntouchedDemo(engine.store))) await reset();
        await importEvents(engine.store, events);
        // States cached from before (of streams that were empty then) are read again from the store.
        engine.loader.clear();
        await firehoses?.recover();
        return { status: 204, headers: {} };
      },
    },
  ];
}

import { createApiHandler, type CallAnswerer, type HttpOptions } from './api-handler.ts';
import type { WireHandler, WireRequest } from './wire.ts';

/**
 * The WHATWG face: `(Request) => Promise<Response>`, for embedding in Hono, Bun, Deno, Fastify or Express
 * adapters, over the same core as the Node listener.
 */
export function createFetchHandler(engine: CallAnswerer, options: HttpOptions = {}): (request: Request) => Promise<Response> {
  return fetchHandlerFor(createApiHandler(engine, options));
}

export function fetchHandlerFor(handler: WireHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    const out = await handler(fromFetch(request));
    if (out.drop) return Response.error();
    if (out.stream) return new Response(streamOf(out.stream), { status: out.status, headers: out.headers });
    return new Response(out.body ?? null, { status: out.status, headers: out.headers });
  };
}

function streamOf(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  const utf8 = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await it.next();
      if (done) controller.close();
      else controller.enqueue(utf8.encode(value));
    },
    async cancel() {
      await it.return?.();
    },
  });
}

function fromFetch(request: Request): WireRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    url: url.pathname + url.search,
    header: (name) => request.headers.get(name) ?? undefined,
    readBody: (limit) => readFetchBody(request, limit),
  };
}

async function readFetchBody(request: Request, limit: number): Promise<Uint8Array | null> {
  const length = request.headers.get('content-length');
  if (length !== null && Number(length) > limit) return null;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

// The embedding recipes of docs/embedding.md, as a user writes them in plain JavaScript. Each starts its
// server on a free port and returns its base URL (with the prefix the API is mounted at) and a stop.
import { createServer } from 'node:http';
import { createEngine } from '@sdp/core';
import { MemoryEventStore } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import { createFetchHandler, createNodeListener } from '@sdp/http';
import { openSqliteStore } from '@sdp/store-sqlite';
import { StreamHost } from '@sdp/stream';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

export function newEngine(store = new MemoryEventStore()) {
  return createEngine({ store, clock: new SystemClock(), ids: randomIds(), settings: { limitingDay: 'pst' } });
}

const listening = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const closing = (server) => () => new Promise((resolve) => server.close(resolve));

/** node:http on the SQLite store. */
export async function nodeHttp(engineFor, dir) {
  const store = await openSqliteStore(`${dir}/sdp.db`);
  const engine = await engineFor(store);
  const server = createServer(createNodeListener(engine));
  const port = await listening(server);
  return { base: `http://127.0.0.1:${port}`, close: async () => { await closing(server)(); await store.close(); } };
}

/** node:http serving the API and, on the same port, the stream product (docs/embedding.md). */
export async function nodeHttpWithStream(engineFor) {
  const engine = await engineFor();
  const server = createServer(createNodeListener(engine));
  const streams = new StreamHost({ engine }).attach(server);
  const port = await listening(server);
  return { base: `http://127.0.0.1:${port}`, close: async () => { await streams.close(); await closing(server)(); } };
}

/** Express with the body parsers most apps have, the API mounted at /api. */
export async function expressApp(engineFor) {
  const engine = await engineFor();
  const app = express();
  app.use(express.json());
  app.use(express.urlencoded({ extended: false }));
  app.get('/health', (_req, res) => res.send('ok'));
  app.use('/api', createNodeListener(engine));
  const server = createServer(app);
  const port = await listening(server);
  return { base: `http://127.0.0.1:${port}/api`, close: closing(server) };
}

/** Fastify: every body kept as raw bytes, and the Node listener answering on Fastify's raw objects. */
export async function fastifyApp(engineFor) {
  const engine = await engineFor();
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const listener = createNodeListener(engine, { basePath: '/api' });
  app.all('/api/*', (request, reply) => {
    request.raw.rawBody = request.body;
    reply.hijack();
    listener(request.raw, reply.raw);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { base: `http://127.0.0.1:${app.server.address().port}/api`, close: () => app.close() };
}

/** Hono on its Node server, the fetch handler under /api. */
export async function honoApp(engineFor) {
  const engine = await engineFor();
  const handle = createFetchHandler(engine, { basePath: '/api' });
  const app = new Hono();
  app.all('/api/*', (c) => handle(c.req.raw));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { base: `http://127.0.0.1:${server.address().port}/api`, close: closing(server) };
}

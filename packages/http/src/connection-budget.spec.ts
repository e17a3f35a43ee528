import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionBudget, DEFAULT_MAX_PER_ADDRESS, DESCRIPTOR_MARGIN, FALLBACK_MAX_CONNECTIONS, defaultMaxConnections } from './connection-budget.ts';
import { bindPort } from './node-listener.ts';

const servers: Server[] = [];
const clients: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that greets every connection it is given, behind `budget`. */
async function greeter(budget: ConnectionBudget): Promise<{ port: number; greeted: () => number }> {
  let greeted = 0;
  const server = createServer((socket) => {
    greeted++;
    socket.on('error', () => undefined);
    socket.write('hi');
  });
  servers.push(server);
  const { port } = await bindPort(server, 0, '127.0.0.1', { budget });
  return { port, greeted: () => greeted };
}

/** Connects from `from`; answers whether the server greeted it, or closed it without a byte. */
function visit(port: number, from = '127.0.0.1'): Promise<'greeted' | 'closed'> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    clients.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => resolve('greeted'));
    socket.once('close', () => resolve('closed'));
  });
}

const until = async (test: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(test()).toBe(true);
};

describe('ConnectionBudget (docs/limits.md#sockets)', () => {
  it('reads the soft descriptor limit less the margin, or falls back', () => {
    const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                20000                files\n`;
    expect(defaultMaxConnections(limits('20000'))).toBe(20_000 - DESCRIPTOR_MARGIN);
    expect(defaultMaxConnections(limits('unlimited'))).toBe(FALLBACK_MAX_CONNECTIONS);
    expect(defaultMaxConnections('nothing here')).toBe(FALLBACK_MAX_CONNECTIONS);
    expect(new ConnectionBudget().maxPerAddress).toBe(DEFAULT_MAX_PER_ADDRESS);
    expect(new ConnectionBudget().maxConnections).toBeGreaterThan(0);
  });

  it('serves connections under the per-address budget, destroys the one over it unread, and counts down as they close', async () => {
    const budget = new ConnectionBudget({ maxConnections: 100, maxPerAddress: 3 });
    const { port, greeted } = await greeter(budget);
    expect(await Promise.all([visit(port), visit(port), visit(port)])).toEqual(['greeted', 'greeted', 'greeted']);
    expect(budget.held('127.0.0.1')).toBe(3);
    expect(await visit(port)).toBe('closed');
    // The refused one never reached the server's listener.
    expect(greeted()).toBe(3);
    // Another address has a budget of its own.
    expect(await visit(port, '127.0.0.2')).toBe('greeted');
    clients[0]!.destroy();
    await until(() => budget.held('127.0.0.1') === 2);
    expect(budget.held()).toBe(3);
    expect(await visit(port)).toBe('greeted');
  });

  it('destroys a connection over the total whatever its address; every port given the budget shares it', async () => {
    const budget = new ConnectionBudget({ maxConnections: 2, maxPerAddress: 10 });
    const one = await greeter(budget);
    const two = await greeter(budget);
    expect(await visit(one.port, '127.0.0.1')).toBe('greeted');
    expect(await visit(two.port, '127.0.0.2')).toBe('greeted');
    expect(await visit(one.port, '127.0.0.3')).toBe('closed');
    expect(await visit(two.port, '127.0.0.4')).toBe('closed');
    clients[1]!.destroy();
    await until(() => budget.held() === 1);
    expect(await visit(two.port, '127.0.0.3')).toBe('greeted');
  });

  it('on node:http, a connection over budget is closed before its request is parsed', async () => {
    const budget = new ConnectionBudget({ maxConnections: 1, maxPerAddress: 1 });
    let requests = 0;
    const server = createHttpServer((_req, res) => {
      requests++;
      res.end('ok');
    });
    servers.push(server);
    const { port } = await bindPort(server, 0, '127.0.0.1', { budget });
    const held = connect(port, '127.0.0.1');
    clients.push(held);
    await new Promise((r) => held.once('connect', r));
    await until(() => budget.held() === 1);
    const over = connect(port, '127.0.0.1');
    clients.push(over);
    over.on('error', () => undefined);
    let answer = '';
    over.on('data', (d) => (answer += String(d)));
    over.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => over.once('close', r));
    expect(answer).toBe('');
    expect(requests).toBe(0);
    held.destroy();
    await until(() => budget.held() === 0);
    const r = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } });
    expect(await r.text()).toBe('ok');
  });
});

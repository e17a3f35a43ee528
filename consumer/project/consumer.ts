// A strict TypeScript user of the public types: it must compile against the declarations alone.
import { createServer } from 'node:http';
import { AccountDirectory, accountFigures, createEngine, resourceHistory, ENDPOINTS, type AccountFigures, type ApiCall, type CallAnswer, type EndpointId, type Handler, type HandlerTable } from '@sdp/core';
import { MemoryEventStore } from '@sdp/core/kernel';
import { ManualClock, SystemClock, randomIds } from '@sdp/clock';
import { createFetchHandler, createNodeListener, type HttpOptions } from '@sdp/http';
import { openSqliteStore, type SqliteStoreOptions } from '@sdp/store-sqlite';
import { connectPostgresStore } from '@sdp/store-postgres';
import { deciderSpec } from '@sdp/testing/no-runner';
import { accountDecider } from '@sdp/core/deciders';

const validate: EndpointId = 'core.validate';
const echo: Handler = (ctx) => ({ body: { endpoint: ctx.endpoint.id, version: ctx.version } });
const handlers: HandlerTable = { 'push.get': echo };

export async function run(): Promise<CallAnswer> {
  const store = process.env['SQLITE'] ? await openSqliteStore(process.env['SQLITE']) : new MemoryEventStore();
  const engine = createEngine({ store, clock: new ManualClock(0), ids: randomIds(), settings: { limitingDay: 'pst' }, handlers });
  const options: HttpOptions = { product: 'insight', basePath: '/api' };
  const handle: (r: Request) => Promise<Response> = createFetchHandler(engine, options);
  createServer(createNodeListener(engine, options));
  void handle;
  const call: ApiCall = { version: '1.5', endpoint: validate, credentials: { username: 'a', apiKey: 'k' }, params: { csdl: 'x' } };
  const ids: EndpointId[] = ENDPOINTS.map((e) => e.id);
  void ids;
  void new SystemClock().now();
  void connectPostgresStore;
  const o: SqliteStoreOptions | undefined = undefined;
  void o;
  deciderSpec(accountDecider).given([]).when({ type: 'AllowAccount' }).thenThrows(404);
  // The read models: what an account and its resources look like, with no decider.
  const names: string[] = await new AccountDirectory(engine.store).usernames();
  const figures: AccountFigures[] = await Promise.all(names.map((u) => accountFigures(engine, u)));
  const states: string[] = (await resourceHistory(engine.store, 'a')).map((r) => r.state);
  void figures.map((f) => f.task_queues[0]?.queued ?? f.capacity_today.limit);
  void states;
  return engine.call(call);
}

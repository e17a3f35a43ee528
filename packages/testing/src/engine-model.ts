import * as fc from 'fast-check';
import { ManualClock } from '@sdp/clock';
import { atLeast, createEngine, endpointById, answerSchemaOf, type AccountPackage, type CallAnswer, type Engine, type EndpointId, type RateFigures } from '@sdp/core';
import { TASK_QUEUE_LIMIT } from '@sdp/core/deciders';
import { StreamCalls } from '@sdp/core/internal';
import {
  MemoryEventStore,
  seededIds,
  type Clock,
  type EventStore,
  type Ids,
} from '@sdp/core/kernel';
import { callArb, clockMoveArb, type CallSpec } from './arbitraries.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * The published contract, as a model much simpler than the engine: per allowance, one window that opens
 * at the minute mark of its first charge and lasts an hour, and the credits used in it.
 */
export interface AllowanceModel {
  limit: number;
  window: { start: number; used: number } | null;
}

export interface EngineModel {
  now: number;
  allowances: { general: AllowanceModel; analyze: AllowanceModel };
  taskSlots: number;
}

export interface EngineUnderTest {
  engine: Engine;
  clock: ManualClock;
  store: EventStore;
  account: { username: string; api_key: string };
  /** The recording tasks are queued against (when task commands are on). */
  subscriptionId: string | null;
  /** Optional per-endpoint costs the embedder expects to see in `X-RateLimit-Cost`. */
  costs: Partial<Record<EndpointId, number>> | undefined;
}

type Cmd = fc.AsyncCommand<EngineModel, EngineUnderTest>;

/** Thrown when the engine breaks a published invariant; the message names it. */
export class InvariantBroken extends Error {
  constructor(invariant: string, detail: string) {
    super(`${invariant}: ${detail}`);
    this.name = 'InvariantBroken';
  }
}

function holds(ok: boolean, invariant: string, detail: () => string): void {
  if (!ok) throw new InvariantBroken(invariant, detail());
}

/** The window a charge at `now` falls in: the open one, or a fresh one from this minute mark. */
function windowNow(a: AllowanceModel, now: number): { start: number; used: number } {
  if (a.window && now < a.window.start + HOUR) return a.window;
  return { start: Math.floor(now / MINUTE) * MINUTE, used: 0 };
}

function checkFigures(rate: RateFigures | undefined, a: AllowanceModel, w: { start: number; used: number }, expectedRemaining: number, what: string): void {
  holds(rate !== undefined, 'every answer from authentication on carries the five figures', () => `${what} had none`);
  holds(rate!.remaining >= 0, 'credits never negative', () => `${what} reported ${rate!.remaining}`);
  holds(rate!.remaining === expectedRemaining, 'exact remaining', () => `${what}: expected ${expectedRemaining} of ${a.limit}, engine said ${rate!.remaining}`);
  holds(rate!.limit === a.limit, 'the limit reported is the package figure', () => `${what}: expected ${a.limit}, engine said ${rate!.limit}`);
  holds(
    rate!.reset * 1000 === w.start + HOUR && (rate!.reset * 1000) % MINUTE === 0,
    'windows reset on the minute mark, an hour after the first charge',
    () => `${what}: expected reset ${new Date(w.start + HOUR).toISOString()}, engine said ${new Date(rate!.reset * 1000).toISOString()}`,
  );
}

export class ApiCallCommand implements Cmd {
  constructor(readonly spec: CallSpec) {}
  check(): boolean {
    return true;
  }
  async run(m: EngineModel, r: EngineUnderTest): Promise<void> {
    const endpoint = endpointById(this.spec.endpoint);
    const head = await r.store.head();
    const answer: CallAnswer = await r.engine.call({
      version: this.spec.version,
      endpoint: this.spec.endpoint,
      params: this.spec.params,
      credentials: { username: r.account.username, apiKey: r.account.api_key },
      mediaType: 'application/json',
    });
    const what = `${this.spec.endpoint} at ${new Date(m.now).toISOString()} answered ${answer.status}`;
    const schema = answerSchemaOf(this.spec.endpoint, this.spec.version, answer.status);
    holds(
      schema !== undefined && (schema === null ? answer.body === undefined : schema.safeParse(answer.body).success),
      "every answer meets its endpoint's answer schema for its status",
      () => `${what}: ${JSON.stringify(answer.body)?.slice(0, 200)}`,
    );
    if (endpoint.allowance !== 'general' && endpoint.allowance !== 'analyze') return;
    if (r.costs?.[endpoint.id] !== undefined) {
      holds(answer.rate?.cost === r.costs[endpoint.id], 'the cost table', () => `${what}: expected cost ${r.costs![endpoint.id]}, engine said ${answer.rate?.cost}`);
    }
    const a = m.allowances[endpoint.allowance];
    const w = windowNow(a, m.now);
    const cost = endpoint.cost;
    if (a.limit - w.used < cost) {
      const refusal = atLeast(this.spec.version, '1.2') ? 429 : 403;
      holds(answer.status === refusal, 'a call costing more than remains is refused (403 before 1.2, 429 from 1.2)', () => `${what}; ${a.limit - w.used} remained, cost ${cost}`);
      holds(answer.rate!.cost > answer.rate!.remaining, 'a refusal reports a cost above what remains', () => what);
      holds((await r.store.head()) === head, 'nothing charged on refusal', () => `${what} but the store moved`);
      checkFigures(answer.rate, a, w, a.limit - w.used, what);
      return;
    }
    if (answer.status >= 500) {
      holds((await r.store.head()) === head, 'a 5xx charges nothing', () => `${what} but the store moved`);
      checkFigures(answer.rate, a, w, a.limit - w.used, what);
      return;
    }
    // Any served call opens the window when none is open, a free one (cost 0) included (docs/contract.md#hourly-allowances).
    w.used += cost;
    a.window = w;
    holds(w.used <= a.limit, 'no over-admission', () => `${what}: ${w.used} credits used of ${a.limit}`);
    checkFigures(answer.rate, a, w, a.limit - w.used, what);
  }
  toString(): string {
    return `call(${this.spec.version} ${this.spec.endpoint})`;
  }
}

/** The same call `times` times in a row at one instant, as a client's burst: allowances run out quickly. */
export class CallBurstCommand implements Cmd {
  constructor(
    readonly spec: CallSpec,
    readonly times: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: EngineModel, r: EngineUnderTest): Promise<void> {
    const one = new ApiCallCommand(this.spec);
    for (let i = 0; i < this.times; i++) await one.run(m, r);
  }
  toString(): string {
    return `burst(${this.times} × ${this.spec.version} ${this.spec.endpoint})`;
  }
}

export class AdvanceClockCommand implements Cmd {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  async run(m: EngineModel, r: EngineUnderTest): Promise<void> {
    await r.clock.advance(this.ms);
    m.now += this.ms;
  }
  toString(): string {
    return `advance(${this.ms}ms)`;
  }
}

export class StreamChargeCommand implements Cmd {
  constructor(readonly cost: number) {}
  check(): boolean {
    return true;
  }
  async run(m: EngineModel, r: EngineUnderTest): Promise<void> {
    const a = m.allowances.general;
    const w = windowNow(a, m.now);
    const head = await r.store.head();
    const what = `stream charge of ${this.cost} at ${new Date(m.now).toISOString()}`;
    // The operator's charge, a call judged as every charge is (`stream.charge`).
    const answer = await new StreamCalls(r.engine).charge(r.account.username, this.cost);
    if ((answer.status !== 200 && answer.status !== 429) || !answer.rate) throw new Error(`${what}: the engine answered ${answer.status} ${JSON.stringify(answer.body)}`);
    const figures: RateFigures = answer.rate;
    const refused = answer.status === 429;
    holds(refused === a.limit - w.used < this.cost, 'stream usage shares the general allowance', () => `${what}: ${a.limit - w.used} remained, engine ${refused ? 'refused' : 'charged'}`);
    if (refused) {
      holds((await r.store.head()) === head, 'nothing charged on refusal', () => `${what} but the store moved`);
      checkFigures(figures, a, w, a.limit - w.used, what);
      return;
    }
    // As for calls: a charge of 0 still opens the window when none is open (the engine's creditsDecider).
    w.used += this.cost;
    a.window = w;
    holds(w.used <= a.limit, 'no over-admission', () => `${what}: ${w.used} of ${a.limit}`);
    checkFigures(figures, a, w, a.limit - w.used, what);
  }
  toString(): string {
    return `stream(${this.cost})`;
  }
}

/** Creates `count` analysis tasks at one instant: the queue holds at most 1,000 per slot. */
export class TaskBurstCommand implements Cmd {
  /** What the last run saw, for tests that want the figures. */
  accepted = 0;
  refused = 0;
  constructor(readonly count: number) {}
  check(_m: Readonly<EngineModel>): boolean {
    return true;
  }
  async run(m: EngineModel, r: EngineUnderTest): Promise<void> {
    if (!r.subscriptionId) return;
    let accepted = 0;
    let firstQueued: number | null = null;
    for (let i = 0; i < this.count; i++) {
      const before = await r.engine.accountView(r.account.username);
      const head = await r.store.head();
      const answer = await r.engine.call({
        version: '1.5',
        endpoint: 'tasks.create',
        credentials: { username: r.account.username, apiKey: r.account.api_key },
        mediaType: 'application/json',
        params: { service: 'facebook', type: 'analysis', name: `t${i}`, subscription_id: r.subscriptionId, parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 2 } } } },
      });
      const after = await r.engine.accountView(r.account.username);
      holds(after.allowances.general.remaining === before.allowances.general.remaining, 'task creation draws from no allowance', () => `remaining went ${before.allowances.general.remaining} to ${after.allowances.general.remaining}`);
      if (answer.status === 202) {
        accepted++;
        const queued = Number(answer.headers?.['X-Analysis-Tasks-Queued']);
        firstQueued ??= queued - 1;
        holds(queued <= TASK_QUEUE_LIMIT, 'task queues never over 1,000', () => `X-Analysis-Tasks-Queued said ${queued}`);
      } else {
        holds(answer.status === 429, 'a full queue refuses like a rate limit', () => `tasks.create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        holds((await r.store.head()) === head, 'nothing queued on refusal', () => 'the store moved');
      }
    }
    this.accepted = accepted;
    this.refused = this.count - accepted;
    holds(accepted <= TASK_QUEUE_LIMIT * m.taskSlots, 'task queues never over 1,000', () => `${accepted} tasks accepted at one instant with ${m.taskSlots} slot(s)`);
  }
  toString(): string {
    return `tasks(${this.count})`;
  }
}

export interface EngineCommandOptions {
  /** Endpoints the calls pick from (default: every general or analyze endpoint). */
  endpoints?: readonly EndpointId[];
  /** Include stream-product charges (default true). */
  stream?: boolean;
  /** Include bursts of task creations (default false: a full queue takes 1,000 calls). */
  tasks?: boolean;
  maxCommands?: number;
}

/** Model-based commands for `fc.asyncModelRun`: calls and bursts of calls, clock moves, stream charges, task bursts. */
export function engineCommands(opts: EngineCommandOptions = {}): fc.Arbitrary<Iterable<Cmd>> {
  const calls = callArb(opts.endpoints ? { endpoints: opts.endpoints } : {});
  const arbs: fc.Arbitrary<Cmd>[] = [
    calls.map((s) => new ApiCallCommand(s)),
    fc.tuple(calls, fc.integer({ min: 2, max: 120 })).map(([s, n]) => new CallBurstCommand(s, n)),
    clockMoveArb.map((ms) => new AdvanceClockCommand(ms)),
  ];
  if (opts.stream !== false) arbs.push(fc.integer({ min: 0, max: 60 }).map((c) => new StreamChargeCommand(c)));
  if (opts.tasks) arbs.push(fc.integer({ min: 1, max: 1_100 }).map((n) => new TaskBurstCommand(n)));
  return fc.commands(arbs, { maxCommands: opts.maxCommands ?? 60 });
}

export interface EngineModelSetup {
  package: Partial<AccountPackage>;
  /** Builds the engine under test (default: `createEngine` with every platform handler). */
  engine?: (ports: { store: EventStore; clock: Clock; ids: Ids }) => Engine;
  /** Expected `X-RateLimit-Cost` per endpoint id. */
  costs?: Partial<Record<EndpointId, number>>;
  /** Start of the clock (default 2026-01-05T08:05:37Z, off the minute mark on purpose). */
  start?: number;
  /** Start a recording so task bursts have something to analyse. */
  tasks?: boolean;
}

/** Opens an account on a fresh engine and runs the commands against the model, checking every invariant. */
export async function runEngineModel(setup: EngineModelSetup, commands: Iterable<Cmd>): Promise<void> {
  const clock = new ManualClock(setup.start ?? Date.parse('2026-01-05T08:05:37Z'));
  const store = new MemoryEventStore();
  const ids = seededIds(11);
  const engine = setup.engine ? setup.engine({ store, clock, ids }) : createEngine({ store, clock, ids });
  const account = { username: 'model', api_key: 'model-key-000001' };
  const opened = await engine.openAccount({ ...account, package: setup.package });
  let subscriptionId: string | null = null;
  if (setup.tasks) {
    const credentials = { username: account.username, apiKey: account.api_key };
    const compiled = await engine.call({ version: '1.5', endpoint: 'insight.compile', credentials, params: { csdl: 'fb.content contains "coffee"' } });
    const started = await engine.call({ version: '1.5', endpoint: 'insight.start', credentials, params: { hash: (compiled.body as { hash: string }).hash, name: 'model', service: 'facebook' } });
    subscriptionId = (started.body as { id?: string }).id ?? null;
    if (!subscriptionId) throw new Error(`runEngineModel: could not start a recording for tasks: ${JSON.stringify(started.body)}`);
  }
  const pkg = opened.package;
  // The recording's setup charged the general allowance: the model starts from what the engine reports.
  const view = await engine.accountView(account.username);
  const general: AllowanceModel = { limit: pkg.credits_per_hour, window: null };
  if (view.allowances.general.remaining < pkg.credits_per_hour) {
    general.window = { start: view.allowances.general.reset * 1000 - HOUR, used: pkg.credits_per_hour - view.allowances.general.remaining };
  }
  const model: EngineModel = {
    now: clock.now(),
    allowances: { general, analyze: { limit: pkg.analyze_credits_per_hour, window: null } },
    taskSlots: pkg.task_slots,
  };
  const real: EngineUnderTest = { engine, clock, store, account, subscriptionId, costs: setup.costs };
  await fc.asyncModelRun(() => ({ model, real }), commands);
}

export type ModelCommand = Cmd;

import type { ManualClock } from '@sdp/clock';
import { licenceTypeOf, matchedRelayStream, type DeliveredCounts, limitOf, StreamCalls } from '@sdp/core/internal';
import { asPlatformEvent, type CallAnswer, type Engine, type RateFigures } from '@sdp/core';
import { onSchedule } from './call-times.ts';
import type { StreamActor } from './scenario.ts';
import type { UsageLedger } from './usage-ledger.ts';

const MINUTE = 60_000;

/** One connection the consumer holds: its id and, per hash subscribed on it, the subscription's place (`seq`). */
interface HeldConnection {
  id: string;
  subs: Map<string, number>;
}

/**
 * A simulated stream consumer: the stream's calls of the engine's one door (`StreamCalls`), as the real
 * stream's transports make them, with no socket. At its start it compiles its filters (calls like any client's); at each scheduled instant it
 * (re)connects: it closes what it holds, opens anew and subscribes to every hash again, as clients
 * resubscribe on reconnect, so each subscribe is a first one on its connection and is charged. Over
 * WebSocket (`transport: websocket`) and a multi HTTP stream (`http-multi`, `GET /multi?hashes=`) that is
 * one connection for all its hashes; over single-hash HTTP streams (`http`, `GET /<hash>`) one connection
 * a hash, closed again when its subscription is refused, as the server does. It closes at its stop.
 *
 * It reads what was matched for it from the account's relay, as a server's stream host does, and is
 * delivered all of it (a simulated consumer never falls behind): the counts are recorded through the
 * engine when it disconnects and when the run asks (`catchUp`, each simulated hour), so the seconds
 * subscribed and the licences delivered are the real stream's.
 */
export class StreamConsumer {
  private readonly calls: StreamCalls;
  private hashes: string[] = [];
  private held: HeldConnection[] = [];
  private stopped = false;
  /** The version of the account's relay read so far. */
  private relayVersion = 0;

  constructor(
    private readonly actor: StreamActor,
    private readonly apiKey: string,
    private readonly engine: Engine,
    private readonly clock: ManualClock,
    private readonly ledger: UsageLedger,
    private readonly scenarioStart: number,
    private readonly notes: string[],
  ) {
    this.calls = new StreamCalls(engine);
  }

  start(): void {
    const from = this.scenarioStart + this.actor.start;
    const to = this.scenarioStart + this.actor.stop;
    this.clock.at(from, async () => {
      // Nothing matched before it starts is its own.
      this.relayVersion = (await this.engine.store.readStream(matchedRelayStream(this.actor.account))).at(-1)?.version ?? 0;
      if (!(await this.compile())) return;
      onSchedule(this.clock, this.actor.schedule, from, to, (at) => this.reconnect(at));
      // The last instant inside the actor's span: a close at `to` itself could fall after the run's end.
      this.clock.at(to - 1, async () => {
        this.stopped = true;
        await this.disconnect('stop');
      });
    });
  }

  /** Compiles the actor's filters through the API, as a consumer does before it streams; false when one failed. */
  private async compile(): Promise<boolean> {
    for (const csdl of this.actor.filters) {
      const answer = await this.engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: this.actor.account, apiKey: this.apiKey }, params: { csdl } });
      this.ledger.recordCall(this.actor.account, 'core.compile', this.clock.now(), answer, false);
      const hash = (answer.body as { hash?: unknown } | undefined)?.hash;
      if (answer.status !== 200 || typeof hash !== 'string') {
        this.notes.push(`${this.actor.name}: the filter ${JSON.stringify(csdl)} did not compile (${answer.status}): the stream never connected`);
        return false;
      }
      if (!this.hashes.includes(hash)) this.hashes.push(hash);
    }
    return true;
  }

  private async reconnect(at: number): Promise<void> {
    if (this.stopped) return;
    await this.disconnect('reconnect');
    if (this.actor.transport === 'http') {
      // A GET /<hash> each: the connection opens, subscribes its hash, and a refusal closes it.
      for (const hash of this.hashes) {
        const connection = await this.open(at, 'http');
        if (!connection) return;
        if (await this.subscribe(at, connection, hash)) this.held.push(connection);
        else await this.calls.close(this.actor.account, connection.id, 'refused');
      }
      return;
    }
    const connection = await this.open(at, this.actor.transport === 'http-multi' ? 'http' : 'websocket');
    if (!connection) return;
    this.held.push(connection);
    for (const hash of this.hashes) await this.subscribe(at, connection, hash);
  }

  private get credentials() {
    return { username: this.actor.account, apiKey: this.apiKey };
  }

  private async open(at: number, transport: 'websocket' | 'http'): Promise<HeldConnection | undefined> {
    const answer = await this.calls.open(this.credentials, transport);
    if (answer.status === 200) return { id: (answer.body as { connection: string }).connection, subs: new Map() };
    if (answer.status === 429 && limitOf(answer) === 'stream_connections') this.ledger.recordStreamConnectionRefused(this.actor.account, at);
    this.refused(answer);
    return undefined;
  }

  /** Subscribes one hash, charged; false when refused. */
  private async subscribe(at: number, connection: HeldConnection, hash: string): Promise<boolean> {
    const answer = await this.calls.subscribe(this.credentials, connection.id, hash);
    if (answer.status === 200) {
      connection.subs.set(hash, (answer.body as { seq: number }).seq);
      this.ledger.recordStream(this.actor.account, at, answer.rate as RateFigures, false);
      return true;
    }
    if (answer.status === 429 && limitOf(answer) === undefined) this.ledger.recordStream(this.actor.account, at, answer.rate as RateFigures, true);
    else this.refused(answer);
    return false;
  }

  /** A refusal other than the allowance's (the package's stream_connections, a denied account): noted once. */
  private refused(answer: CallAnswer): void {
    if (answer.status >= 500) throw new Error(`the stream's call failed: ${JSON.stringify(answer.body)}`);
    const note = `${this.actor.name}: the stream was refused: ${(answer.body as { error?: string } | undefined)?.error ?? answer.status}`;
    if (!this.notes.includes(note)) this.notes.push(note);
  }

  /**
   * Reads what was matched since the last read, and records what its connections were delivered of it
   * (each match for a hash a connection held from a version at or before the one the match was decided on).
   */
  async catchUp(): Promise<void> {
    const events = await this.engine.store.readStream(matchedRelayStream(this.actor.account), this.relayVersion);
    if (events.length === 0) return;
    this.relayVersion = events[events.length - 1]!.version;
    if (this.held.length === 0) return;
    const counts: DeliveredCounts = {};
    for (const stored of events) {
      const e = asPlatformEvent(stored);
      if (e?.type !== 'StreamInteractionsMatched') continue;
      const seq = e.data.seq ?? e.version - 1;
      const byHash = (counts[String(Math.floor(e.data.at / MINUTE) * MINUTE)] ??= {});
      for (const item of e.data.items) {
        const type = licenceTypeOf(item.interaction);
        for (const hash of item.hashes) {
          for (const c of this.held) {
            const since = c.subs.get(hash);
            if (since === undefined || seq < since) continue;
            const l = (byHash[hash] ??= {});
            l.interaction = (l.interaction ?? 0) + 1;
            if (type) l[type] = (l[type] ?? 0) + 1;
          }
        }
      }
    }
    await this.calls.deliveries(this.actor.account, counts);
  }

  private async disconnect(reason: string): Promise<void> {
    if (this.held.length === 0) return;
    await this.catchUp();
    const held = this.held;
    this.held = [];
    for (const c of held) await this.calls.close(this.actor.account, c.id, reason);
  }
}

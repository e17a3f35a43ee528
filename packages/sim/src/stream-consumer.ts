import type { ManualClock } from '@sdp/clock';
import { CreditsExhausted, DomainError, StreamGate, type Engine } from '@sdp/core';
import { onSchedule } from './call-times.ts';
import type { StreamActor } from './scenario.ts';
import type { UsageLedger } from './usage-ledger.ts';

/**
 * A simulated stream consumer: the core's `StreamGate`, as the real stream's transports use it, with no
 * socket. At its start it compiles its filters (calls like any client's); at each scheduled instant it
 * (re)connects: it closes the connection it holds, opens a new one and subscribes to every hash again, as
 * clients resubscribe on reconnect, so each subscribe is a first one on its connection and is charged.
 * It closes at its stop. The seconds subscribed and the interactions matched are the real stream's.
 */
export class StreamConsumer {
  private readonly gate: StreamGate;
  private hashes: string[] = [];
  private connection: string | undefined;
  private stopped = false;

  constructor(
    private readonly actor: StreamActor,
    private readonly apiKey: string,
    private readonly engine: Engine,
    private readonly clock: ManualClock,
    private readonly ledger: UsageLedger,
    private readonly scenarioStart: number,
    private readonly notes: string[],
  ) {
    this.gate = new StreamGate(engine);
  }

  start(): void {
    const from = this.scenarioStart + this.actor.start;
    const to = this.scenarioStart + this.actor.stop;
    this.clock.at(from, async () => {
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
    try {
      this.connection = await this.gate.open(this.actor.account, 'websocket');
    } catch (error) {
      return this.refused(error);
    }
    for (const hash of this.hashes) {
      try {
        const subscribed = await this.gate.subscribe(this.actor.account, this.connection, hash);
        this.ledger.recordStream(this.actor.account, at, subscribed.rate, false);
      } catch (error) {
        if (error instanceof CreditsExhausted) this.ledger.recordStream(this.actor.account, at, error.figures, true);
        else this.refused(error);
      }
    }
  }

  /** A refusal other than the allowance's (the package's stream_connections, a denied account): noted once. */
  private refused(error: unknown): void {
    if (!(error instanceof DomainError)) throw error;
    const note = `${this.actor.name}: the stream was refused: ${error.message}`;
    if (!this.notes.includes(note)) this.notes.push(note);
  }

  private async disconnect(reason: string): Promise<void> {
    if (this.connection === undefined) return;
    const connection = this.connection;
    this.connection = undefined;
    await this.gate.close(this.actor.account, connection, reason);
  }
}

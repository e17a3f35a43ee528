import type { ManualClock } from '@sdp/clock';
import { type Engine } from '@sdp/core';
import { catchUpFirehose, switchFirehoseOff, switchFirehoseOn } from '@sdp/core/internal';
import type { FirehoseActor } from './scenario.ts';

/**
 * Drives the core's synthetic firehose for one account: switched on through the operator's function,
 * caught up as the clock moves, so running recordings keep what their filters match within capacity.
 */
export class FirehoseFeed {
  constructor(
    private readonly actor: FirehoseActor,
    private readonly engine: Engine,
    private readonly clock: ManualClock,
    private readonly scenarioStart: number,
    private readonly notes: string[],
  ) {}

  start(): void {
    const from = this.scenarioStart + this.actor.start;
    const to = this.scenarioStart + this.actor.stop;
    this.clock.at(from, async () => {
      try {
        await switchFirehoseOn(this.engine, this.actor.account, { service: this.actor.service, perMinute: this.actor.perMinute, seed: this.actor.firehoseSeed });
      } catch (error) {
        this.notes.push(`${this.actor.name}: the firehose could not be switched on: ${(error as Error).message}`);
        return;
      }
      for (let t = from + this.actor.every; t < to; t += this.actor.every) this.clock.at(t, () => this.catchUp());
      this.clock.at(to - 1, async () => {
        await this.catchUp();
        await switchFirehoseOff(this.engine, this.actor.account);
      });
    });
  }

  private async catchUp(): Promise<void> {
    await catchUpFirehose(this.engine, this.actor.account);
  }
}

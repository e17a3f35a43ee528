import type { ManualClock } from '@sdp/clock';
import { CreditsExhausted, type Engine } from '@sdp/core';
import { callTimes } from './call-times.ts';
import type { StreamActor } from './scenario.ts';
import type { UsageLedger } from './usage-ledger.ts';

/** The stream product's usage: charges the general allowance through the engine's operator API. */
export class StreamUsage {
  constructor(
    private readonly actor: StreamActor,
    private readonly engine: Engine,
    private readonly clock: ManualClock,
    private readonly ledger: UsageLedger,
    private readonly scenarioStart: number,
  ) {}

  start(): void {
    const times = callTimes(this.actor.schedule, this.scenarioStart + this.actor.start, this.scenarioStart + this.actor.stop);
    const next = (): void => {
      const t = times.next();
      if (t.done) return;
      this.clock.at(t.value, async (at) => {
        next();
        try {
          const figures = await this.engine.chargeStream(this.actor.account, this.actor.cost);
          this.ledger.recordStream(this.actor.account, at, figures, false);
        } catch (error) {
          if (!(error instanceof CreditsExhausted)) throw error;
          this.ledger.recordStream(this.actor.account, at, error.figures, true);
        }
      });
    };
    next();
  }
}

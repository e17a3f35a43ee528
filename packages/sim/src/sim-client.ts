import type { ManualClock } from '@sdp/clock';
import type { ApiCall, CallAnswer, Engine } from '@sdp/core';
import { onSchedule } from './call-times.ts';
import { fillTemplate, frozenCopy, hasDynamicPlaceholders, type TemplateScope } from './params-template.ts';
import type { CallActor } from './scenario.ts';
import type { UsageLedger } from './usage-ledger.ts';

export interface SetupOutcome {
  actor: string;
  as: string;
  endpoint: string;
  status: number;
  body: unknown;
}

/**
 * A client of the API: calls one endpoint on its schedule, and after a rate-limit refusal waits and sends
 * the same call again, as real clients do (exponential back-off, or waiting out `X-RateLimit-Reset-Ttl`).
 * Each scheduled call is its own request: a client backing off does not stop the schedule.
 */
export class SimClient {
  private scope: TemplateScope;
  private params: Record<string, unknown> = {};
  private dynamic = false;
  private body: string | undefined;
  /**
   * The scheduled call, made once after the setup when its parameters hold no placeholder: the engine
   * never changes a call, and a new one for every send was garbage made a hundred thousand times a week.
   */
  private call: ApiCall | undefined;
  private readonly credentialsOfCalls: ApiCall['credentials'];
  private n = 0;
  readonly setupOutcomes: SetupOutcome[] = [];

  constructor(
    private readonly actor: CallActor,
    private readonly apiKey: string,
    private readonly engine: Engine,
    private readonly clock: ManualClock,
    private readonly ledger: UsageLedger,
    private readonly scenarioStart: number,
    private readonly scenarioEnd: number,
  ) {
    this.scope = { actor: actor.name, account: actor.account };
    this.credentialsOfCalls = Object.freeze({ username: actor.account, apiKey });
  }

  start(): void {
    const from = this.scenarioStart + this.actor.start;
    const to = this.scenarioStart + this.actor.stop;
    this.clock.at(from, async () => {
      await this.setup();
      if (this.actor.endpoint === '') return;
      onSchedule(this.clock, this.actor.schedule, from, to, (at) => this.send(at, 1));
    });
  }

  private async setup(): Promise<void> {
    for (const s of this.actor.setup) {
      const answer = await this.engine.call({
        version: s.version,
        endpoint: s.endpoint,
        credentials: this.credentials(),
        params: fillTemplate(s.params, this.scope) as Record<string, unknown>,
        mediaType: 'application/json',
      });
      this.ledger.recordCall(this.actor.account, s.endpoint, this.clock.now(), answer, false);
      this.scope[s.as] = { status: answer.status, body: answer.body, headers: answer.headers ?? {} };
      this.setupOutcomes.push({ actor: this.actor.name, as: s.as, endpoint: s.endpoint, status: answer.status, body: answer.body });
    }
    this.params = frozenCopy(fillTemplate(this.actor.params, this.scope) as Record<string, unknown>);
    this.dynamic = hasDynamicPlaceholders(this.params);
    if (this.actor.body) {
      const line = JSON.stringify(fillTemplate(this.actor.body.template, this.scope));
      this.body = Array.from({ length: this.actor.body.interactions }, () => line).join('\n') + '\n';
    }
    const endpoint = this.actor.endpoint;
    if (!this.dynamic && endpoint !== '') this.call = Object.freeze(this.callWith(endpoint, this.params));
  }

  private callWith(endpoint: ApiCall['endpoint'], params: Record<string, unknown>): ApiCall {
    return {
      version: this.actor.version,
      endpoint,
      credentials: this.credentialsOfCalls,
      params,
      mediaType: this.actor.mediaType,
      ...(this.body !== undefined ? { body: this.body } : {}),
    };
  }

  private credentials(): ApiCall['credentials'] {
    return { username: this.actor.account, apiKey: this.apiKey };
  }

  /**
   * Sends one scheduled call. The engine's answer is taken as a value when the call waited on nothing
   * (`Engine.answer`), so the common call costs no promise; the same steps follow in the same order.
   */
  private send(at: number, attempt: number): void | Promise<void> {
    this.n++;
    // A setup-only actor has no endpoint of its own and is never scheduled.
    const endpoint = this.actor.endpoint;
    if (endpoint === '') return;
    let call = this.call;
    if (this.dynamic) {
      this.scope.n = this.n;
      this.scope.now_s = Math.floor(at / 1000);
      this.scope.now = new Date(at).toISOString();
      call = this.callWith(endpoint, fillTemplate(this.params, this.scope) as Record<string, unknown>);
    }
    const answer = this.engine.answer(call ?? this.callWith(endpoint, this.params));
    if (answer instanceof Promise) return answer.then((a) => this.answered(at, attempt, a));
    this.answered(at, attempt, answer);
  }

  private answered(at: number, attempt: number, answer: CallAnswer): void {
    const refusal = this.ledger.recordCall(this.actor.account, this.actor.endpoint, at, answer, attempt > 1);
    this.retry(at, attempt, answer, refusal);
  }

  private retry(at: number, attempt: number, answer: CallAnswer, refusal: 'rate' | 'queue' | null): void {
    const policy = this.actor.retry;
    if (!policy || !policy.on.includes(answer.status)) return;
    // A 403 is only worth retrying when it is a rate or queue refusal; a denied account stays denied.
    if (answer.status === 403 && refusal === null) return;
    const delay =
      policy.backoff === 'reset' && answer.rate
        ? answer.rate.resetTtl * 1000 + policy.base
        : Math.min(policy.maxDelay, policy.base * policy.factor ** (attempt - 1));
    const when = at + Math.max(1, Math.round(delay));
    if (attempt >= policy.maxAttempts || when >= this.scenarioEnd) {
      this.ledger.recordGaveUp(this.actor.account, at);
      return;
    }
    this.clock.at(when, (t) => this.send(t, attempt + 1));
  }
}

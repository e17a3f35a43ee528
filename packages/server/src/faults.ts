import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, isEndpointId } from '@sdp/core';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** The statuses a rule may answer with: the failures a client of the real service meets. */
export const FAULT_STATUSES = [500, 502, 503, 504] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** A rule as `GET /_admin/faults` lists it (docs/contract.md#toolbox). */
export interface FaultRule {
  id: string;
  status: FaultStatus | null;
  delay_ms: number | null;
  drop: boolean;
  username: string | null;
  endpoint: string | null;
  /** Firings left; null for no count. A rule is removed when it reaches 0. */
  remaining: number | null;
  probability: number | null;
  retry_after: number | null;
}

/** What the HTTP face does with a call a rule matched: answer instead of the engine, or drop the connection. */
export type FaultOutcome = { kind: 'answer'; status: FaultStatus; retryAfter: number | null; rule: string } | { kind: 'drop'; rule: string };

/** The call as a rule sees it: who calls (as sent, authenticated or not) and which catalogue endpoint. */
export interface FaultTarget {
  username: string | null;
  endpoint: string;
}


/**
 * The operator's injected faults. Rules are tried in the order they were added; a matching rule fires
 * (always, or with its probability drawn from the seeded generator) and spends one of its count. Latency
 * adds up over every rule that fires; the first rule that fires with a status or a drop decides the answer.
 * A fault answers before the engine is asked, so an injected 5xx charges nothing (docs/contract.md#judgement-order).
 */
export class FaultInjector {
  private rules: FaultRule[] = [];
  private next = 1;
  private rng: RandomGenerator;

  constructor(seed: number = Math.floor(Math.random() * 2 ** 31), private readonly wait: (ms: number) => Promise<unknown> = (ms) => sleep(ms)) {
    this.rng = xoroshiro128plus(seed);
  }

  /** Restarts the generator of probabilistic rules: the same seed and calls give the same faults. */
  seed(seed: number): void {
    this.rng = xoroshiro128plus(seed);
  }

  add(input: Record<string, unknown>): FaultRule {
    const rule = readRule(input, `f${this.next}`);
    this.next++;
    this.rules.push(rule);
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  get active(): boolean {
    return this.rules.length > 0;
  }

  /** Decides a call's faults, waits out their latency, and tells what to answer instead (if anything). */
  async intercept(target: FaultTarget): Promise<FaultOutcome | undefined> {
    if (this.rules.length === 0) return undefined;
    let delay = 0;
    let outcome: FaultOutcome | undefined;
    for (const rule of [...this.rules]) {
      if (rule.username !== null && rule.username !== target.username) continue;
      if (rule.endpoint !== null && rule.endpoint !== target.endpoint) continue;
      const decides = rule.status !== null || rule.drop;
      if (decides && outcome) continue;
      if (rule.probability !== null && uniformFloat64(this.rng) >= rule.probability) continue;
      if (rule.remaining !== null) {
        rule.remaining--;
        if (rule.remaining <= 0) this.remove(rule.id);
      }
      delay += rule.delay_ms ?? 0;
      if (rule.drop) outcome = { kind: 'drop', rule: rule.id };
      else if (rule.status !== null) outcome = { kind: 'answer', status: rule.status, retryAfter: rule.retry_after, rule: rule.id };
    }
    if (delay > 0) await this.wait(delay);
    return outcome;
  }
}

function readRule(b: Record<string, unknown>, id: string): FaultRule {
  const known = ['status', 'delay_ms', 'drop', 'username', 'endpoint', 'count', 'probability', 'retry_after'];
  const unknown = Object.keys(b).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new DomainError(400, `Unknown fault field(s): ${unknown.join(', ')}; a rule takes ${known.join(', ')}`);
  const { status, delay_ms: delay, drop, username, endpoint, count, probability, retry_after: retryAfter } = b;
  const absent = (v: unknown) => v === undefined || v === null;
  if (!absent(status) && !FAULT_STATUSES.includes(status as FaultStatus)) throw new DomainError(400, `status must be one of ${FAULT_STATUSES.join(', ')}`);
  if (!absent(delay) && !(Number.isSafeInteger(delay) && (delay as number) >= 0 && (delay as number) <= 600_000)) throw new DomainError(400, 'delay_ms must be a whole number of milliseconds from 0 to 600000');
  if (!absent(drop) && typeof drop !== 'boolean') throw new DomainError(400, 'drop must be true or false');
  if (drop === true && !absent(status)) throw new DomainError(400, 'A rule either drops the connection or answers a status, not both');
  if (absent(status) && drop !== true && absent(delay)) throw new DomainError(400, 'A rule needs a status, delay_ms or drop');
  if (!absent(username) && (typeof username !== 'string' || username === '')) throw new DomainError(400, 'username must be a non-empty string');
  if (!absent(endpoint) && (typeof endpoint !== 'string' || !isEndpointId(endpoint))) throw new DomainError(400, 'endpoint must be a catalogue endpoint id (such as "core.validate")');
  if (!absent(count) && !(Number.isSafeInteger(count) && (count as number) >= 1)) throw new DomainError(400, 'count must be a whole number, 1 or more');
  if (!absent(probability) && !(typeof probability === 'number' && probability >= 0 && probability <= 1)) throw new DomainError(400, 'probability must be a number from 0 to 1');
  if (!absent(retryAfter) && !(Number.isSafeInteger(retryAfter) && (retryAfter as number) >= 0)) throw new DomainError(400, 'retry_after must be a whole number of seconds');
  if (!absent(retryAfter) && status !== 503) throw new DomainError(400, 'retry_after goes with status 503');
  return {
    id,
    status: absent(status) ? null : (status as FaultStatus),
    delay_ms: absent(delay) ? null : (delay as number),
    drop: drop === true,
    username: absent(username) ? null : (username as string),
    endpoint: absent(endpoint) ? null : (endpoint as string),
    remaining: absent(count) ? null : (count as number),
    probability: absent(probability) ? null : (probability as number),
    retry_after: absent(retryAfter) ? (status === 503 ? 1 : null) : (retryAfter as number),
  };
}

import { AssertionError } from 'node:assert';
import { inspect, isDeepStrictEqual } from 'node:util';
import { DomainError } from '@sdp/core';
import { fold, type Decider, type DomainEvent } from '@sdp/core/kernel';

/** What a refusal is expected to be: a DomainError subclass (or any Error class), or a status. */
export type ExpectedRefusal = number | (abstract new (...args: never[]) => Error);

/**
 * Given events / when command / then events (or a refusal), for any decider, in any test runner:
 *
 *   deciderSpec(accountDecider).given([opened]).when({ type: 'DenyAccount', reason: 'spam' }).then([denied]);
 *   deciderSpec(creditsDecider).given([]).when(tooDear).thenThrows(429);
 *
 * `then` compares events by deep strict equality (Node's `isDeepStrictEqual`): key order does not matter,
 * a key holding `undefined` is not the same as a missing key, and `1` is not `'1'`. When the decider
 * disagrees, `then` and `thenThrows` throw an `AssertionError` with both sides printed (and `actual` and
 * `expected` set, so test runners show a diff).
 */
export function deciderSpec<S, C, E extends DomainEvent>(decider: Decider<S, C, E>): DeciderSpec<S, C, E> {
  return new DeciderSpec(decider, []);
}

export class DeciderSpec<S, C, E extends DomainEvent> {
  constructor(
    private readonly decider: Decider<S, C, E>,
    private readonly history: readonly E[],
    private readonly command?: { value: C },
  ) {}

  given(events: readonly E[]): DeciderSpec<S, C, E> {
    return new DeciderSpec(this.decider, events, this.command);
  }

  when(command: C): DeciderSpec<S, C, E> {
    return new DeciderSpec(this.decider, this.history, { value: command });
  }

  /** The state the given events lead to. */
  state(): S {
    return fold(this.decider, this.history);
  }

  /** Checks the decided events; returns the state after them, for further checks. */
  then(expected: readonly E[]): S {
    const before = this.state();
    const actual = this.decide(before);
    if (!isDeepStrictEqual(actual, expected)) {
      throw new AssertionError({
        message: `${this.decider.name}: expected events\n  ${show(expected)}\nbut the decider decided\n  ${show(actual)}`,
        actual,
        expected,
        operator: 'deepStrictEqual',
      });
    }
    return fold(this.decider, actual, before);
  }

  /** Checks the command is refused: by error class or by the status a DomainError carries. */
  thenThrows(expected: ExpectedRefusal, message?: RegExp): Error {
    const before = this.state();
    let events: E[];
    try {
      events = this.decide(before);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      if (typeof expected === 'number') {
        const status = error instanceof DomainError ? error.status : undefined;
        if (status !== expected) throw new Error(`${this.decider.name}: expected a ${expected} refusal but got ${status ?? error.name}: ${error.message}`, { cause: error });
      } else if (!(error instanceof expected)) {
        const got = error as Error;
        throw new Error(`${this.decider.name}: expected a ${expected.name} but got ${got.name}: ${got.message}`, { cause: error });
      }
      if (message && !message.test(error.message)) throw new Error(`${this.decider.name}: expected a message matching ${message} but got: ${error.message}`);
      return error;
    }
    throw new Error(`${this.decider.name}: expected ${typeof expected === 'number' ? `a ${expected} refusal` : `a ${expected.name}`} but the decider decided ${show(events)}`);
  }

  private decide(state: S): E[] {
    if (!this.command) throw new Error('deciderSpec: call when(command) before then()');
    return this.decider.decide(this.command.value, state);
  }
}

/** A value printed whole on one line, `undefined` included (JSON would drop it). */
function show(value: unknown): string {
  return inspect(value, { depth: null, breakLength: Infinity, compact: true, sorted: false });
}

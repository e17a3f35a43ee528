import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { fold } from '../kernel/decider.ts';
import { DomainError } from './errors.ts';

/**
 * Given events / when command / then events or error, as deciders are specified. Framework-neutral:
 * `then` and `thenThrows` throw an Error with a readable diff, so it works in any test runner.
 *
 *   DeciderSpecification.for(recordings).given([started]).when(stop).then([stopped]);
 */
export class DeciderSpecification<S, C, E extends DomainEvent> {
  private constructor(
    private readonly decider: Decider<S, C, E>,
    private readonly history: E[] = [],
    private readonly command?: C,
  ) {}

  static for<S, C, E extends DomainEvent>(decider: Decider<S, C, E>): DeciderSpecification<S, C, E> {
    return new DeciderSpecification(decider);
  }

  given(events: E[]): DeciderSpecification<S, C, E> {
    return new DeciderSpecification(this.decider, events, this.command);
  }

  when(command: C): DeciderSpecification<S, C, E> {
    return new DeciderSpecification(this.decider, this.history, command);
  }

  /** The events decided; also returns the state they lead to, for further checks. */
  then(expected: E[]): S {
    const state = fold(this.decider, this.history);
    const actual = this.decider.decide(this.command as C, state);
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a !== e) throw new Error(`expected events ${e}\n     but got ${a}`);
    return fold(this.decider, actual, state);
  }

  /** The command is refused with this status (a DomainError) and, if given, a message matching. */
  thenThrows(status: number, message?: RegExp): DomainError {
    const state = fold(this.decider, this.history);
    try {
      const events = this.decider.decide(this.command as C, state);
      throw new Error(`expected a ${status} refusal but got events ${JSON.stringify(events)}`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.status !== status) throw new Error(`expected status ${status} but got ${error.status}: ${error.message}`);
      if (message && !message.test(error.message)) throw new Error(`expected a message matching ${message} but got: ${error.message}`);
      return error;
    }
  }
}

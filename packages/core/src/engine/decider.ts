import { produce, type Draft } from 'immer';

/**
 * The decider as the house uses it: a pure `decide` that turns a command and the current state into
 * events (or throws a DomainError), and a pure `evolve` that folds one event into the state.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  readonly name: string;
  initialState(): State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

/** What a decider emits: a type tag and plain JSON data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/**
 * Builds an `evolve` from per-event recipes run through immer, so each recipe reads as a plain mutation
 * while states stay immutable (cached states are shared between calls, so they must never change).
 */
export function evolveWith<State, Event extends DomainEvent>(
  recipes: { [T in Event['type']]?: (draft: Draft<State>, data: Extract<Event, { type: T }>['data']) => void },
): (state: State, event: Event) => State {
  return (state, event) => {
    const recipe = recipes[event.type as Event['type']];
    if (!recipe) return state;
    return produce(state, (draft) => {
      recipe(draft, event.data as never);
    });
  };
}

/** Folds events from the initial state: what a store's stream means. */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: Iterable<Event>,
  from: State = decider.initialState(),
): State {
  let state = from;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

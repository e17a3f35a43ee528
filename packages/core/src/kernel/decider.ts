import { createDraft, finishDraft, isDraftable, produce, type Draft } from 'immer';

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

const EVOLVE_MANY = Symbol('evolveMany');

/**
 * Builds an `evolve` from per-event recipes run through immer, so each recipe reads as a plain mutation
 * while states stay immutable (cached states are shared between calls, so they must never change).
 */
export function evolveWith<State, Event extends DomainEvent>(
  recipes: { [T in Event['type']]?: (draft: Draft<State>, data: Extract<Event, { type: T }>['data']) => void },
): (state: State, event: Event) => State {
  const evolve = (state: State, event: Event): State => {
    const recipe = recipes[event.type as Event['type']];
    if (!recipe) return state;
    return produce(state, (draft) => {
      recipe(draft, event.data as never);
    });
  };
  // Many events through one draft: what a replay of the whole log needs. Each event's data is copied
  // first, because within one draft a recipe that keeps event data in the state and changes it later
  // would otherwise change the event itself (one produce per event freezes it in between).
  const evolveMany = (from: State, events: Iterable<Event>, copy: boolean): State => {
    if (!isDraftable(from)) return foldOneByOne(evolve, events, from);
    const draft = createDraft(from as object) as Draft<State>;
    for (const event of events) recipes[event.type as Event['type']]?.(draft, (copy ? copyJson(event.data) : event.data) as never);
    return finishDraft(draft) as State;
  };
  return Object.assign(evolve, { [EVOLVE_MANY]: evolveMany });
}

function foldOneByOne<State, Event>(evolve: (state: State, event: Event) => State, events: Iterable<Event>, from: State): State {
  let state = from;
  for (const event of events) state = evolve(state, event);
  return state;
}

/** Folds events from the initial state: what a store's stream means. */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: Iterable<Event>,
  from: State = decider.initialState(),
): State {
  return foldOneByOne(decider.evolve, events, from);
}

/**
 * `fold`, faster: a decider built with `evolveWith` folds the lot through one immer draft (several
 * times cheaper than a produce per event). Same state, as long as no recipe puts one event object in
 * two places of the state and then changes it; the replay tool uses it, the engine does not.
 * `eventsOwned`: the caller owns the events (fresh from disk), so their data need not be copied.
 */
export function foldMany<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: Iterable<Event>,
  from: State = decider.initialState(),
  eventsOwned = false,
): State {
  const many = (decider.evolve as { [EVOLVE_MANY]?: (state: State, events: Iterable<Event>, copy: boolean) => State })[EVOLVE_MANY];
  return many ? many(from, events, !eventsOwned) : foldOneByOne(decider.evolve, events, from);
}

/** A deep copy of plain JSON data (what events carry). */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out;
}

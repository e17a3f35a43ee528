import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';

/**
 * What an account may add to the filter registry in one limiting day: characters of definitions no call
 * had compiled before. A definition may be 1 MB (the seed's limit) and the registry keeps every one, so
 * without a budget an hour's credits would add gigabytes; compiling a definition already recorded, by
 * anyone, costs nothing here.
 */
export interface DefinitionBudget {
  /** Characters of new definitions recorded this day. */
  spent: number;
}

export type DefinitionBudgetEvent = DomainEvent<'FilterDefinitionsSpent', { chars: number; at: number }>;

export interface SpendDefinitionChars {
  type: 'SpendDefinitionChars';
  chars: number;
  at: number;
  /** The package's `filter_chars_per_day`. */
  limit: number;
}

/** The stream of one account's day (the limiting day's key), as recording capacity is kept. */
export const definitionBudgetStream = (username: string, dayKey: string): string => `filter-budget:${username}:${dayKey}`;

export class DefinitionBudgetSpent extends DomainError {
  constructor(limit: number, spent: number, chars: number) {
    super(
      403,
      `Your package records at most ${limit} characters of new filter definitions a limiting day (filter_chars_per_day); ` +
        `${spent} are recorded today and this definition has ${chars}. Compile it tomorrow, or reuse a recorded definition`,
    );
  }
}

export const definitionBudgetDecider: Decider<DefinitionBudget, SpendDefinitionChars, DefinitionBudgetEvent> = {
  name: 'filter-budget.v1',
  initialState: () => ({ spent: 0 }),
  decide(command, state) {
    if (state.spent + command.chars > command.limit) throw new DefinitionBudgetSpent(command.limit, state.spent, command.chars);
    return [{ type: 'FilterDefinitionsSpent', data: { chars: command.chars, at: command.at } }];
  },
  evolve: evolveWith<DefinitionBudget, DefinitionBudgetEvent>({
    FilterDefinitionsSpent(draft, data) {
      draft.spent += data.chars;
    },
  }),
};

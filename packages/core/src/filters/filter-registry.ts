import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest } from '../calls/errors.ts';

/**
 * The filter registry: one stream per compiled definition (`filter:{hash}`), so that recordings, pushes
 * and `/dpu` can refer to a filter by its hash alone. Hashes are content addresses, so recording the same
 * definition twice decides nothing.
 */
export interface RegisteredFilter {
  exists: boolean;
  hash: string;
  /** The definition as first compiled (other spellings of it share the hash and the meaning). */
  text: string;
  compiledAt: number;
}

export type FilterEvent = DomainEvent<'FilterCompiled', { hash: string; text: string; at: number }>;

export type FilterCommand = { type: 'RecordFilter'; hash: string; text: string; at: number };

export const filterStream = (hash: string): string => `filter:${hash}`;

export const HASH = /^[0-9a-f]{32}$/;

export const filterRegistryDecider: Decider<RegisteredFilter, FilterCommand, FilterEvent> = {
  name: 'filter.v1',
  initialState: () => ({ exists: false, hash: '', text: '', compiledAt: 0 }),
  decide(command, state) {
    if (!HASH.test(command.hash)) throw new BadRequest('hash must be a valid hash');
    if (state.exists) return [];
    return [{ type: 'FilterCompiled', data: { hash: command.hash, text: command.text, at: command.at } }];
  },
  evolve: evolveWith<RegisteredFilter, FilterEvent>({
    FilterCompiled(draft, data) {
      draft.exists = true;
      draft.hash = data.hash;
      draft.text = data.text;
      draft.compiledAt = data.at;
    },
  }),
};

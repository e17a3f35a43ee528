import { DomainError, BadRequest } from '../engine/errors.ts';
import type { UnitOfWork } from '../engine/unit-of-work.ts';
import { loadFilter, type CompiledFilter } from '../filters/index.ts';

export const HASH_PATTERN = /^[0-9a-f]{32}$/;

/** The compiled filter a recording names; 400 `hash must be a valid hash` when no filter has that hash. */
export async function recordingFilter(uow: UnitOfWork, hash: string): Promise<CompiledFilter> {
  if (!HASH_PATTERN.test(hash)) throw new BadRequest('hash must be a valid hash');
  let filter: CompiledFilter | undefined;
  try {
    filter = (await loadFilter(uow, hash)) ?? undefined;
  } catch (error) {
    if (error instanceof DomainError && error.status < 500) throw new BadRequest('hash must be a valid hash');
    throw error;
  }
  if (!filter) throw new BadRequest('hash must be a valid hash');
  return filter;
}

import { BadRequest, DomainError } from '../calls/errors.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { cachedFilter, compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { filterRegistryDecider, filterStream, HASH } from './filter-registry.ts';
import { checkDefinitionLimits } from './limits.ts';
import { definitionBudgetDecider, definitionBudgetStream } from './definition-budget.ts';

/**
 * The compiled definition recorded under `hash`, ready to match; undefined when no call compiled it.
 * The definitions it includes are loaded and bound to it, so its inclusions hold even when the
 * in-process caches forget them.
 */
export async function loadFilter(uow: UnitOfWork, hash: string, loaded: Map<string, CompiledFilter | null> = new Map()): Promise<CompiledFilter | undefined> {
  const h = hash.toLowerCase();
  if (loaded.has(h)) return loaded.get(h) ?? undefined;
  if (!HASH.test(h)) return undefined;
  const state = await uow.load(filterRegistryDecider, filterStream(h));
  if (!state.exists) {
    loaded.set(h, null);
    return undefined;
  }
  // A recorded definition was valid when recorded, so compiling it again cannot throw. Should the
  // canonical form ever change, the definition still answers to the hash it was recorded under.
  let f = cachedFilter(h) ?? compileFilter(state.text);
  if (f.hash !== h) f = { ...f, hash: h };
  loaded.set(h, f);
  for (const ref of f.references) {
    const included = await loadFilter(uow, ref, loaded);
    if (included) f.bind(included);
  }
  return f;
}

/**
 * `loadFilter` for a caller that shares the event loop (`yieldTurn`): a definition this process no longer
 * holds compiled (the caches keep what their bounds allow, so an account's 110 filters at the regex
 * budget do not all stay) is compiled again in one go, tens of milliseconds at the budget, so after
 * such a compile the caller's turn ends. A definition still held costs no turn.
 */
export async function loadFilterInTurn(uow: UnitOfWork, hash: string, yieldTurn: (() => Promise<void>) | undefined): Promise<CompiledFilter | undefined> {
  const cold = yieldTurn !== undefined && cachedFilter(hash.toLowerCase()) === undefined;
  const filter = await loadFilter(uow, hash);
  if (cold && filter) await yieldTurn!();
  return filter;
}

/**
 * The compiled filter a recording, historics query or preview names by its `hash`: a 400 `hash must be
 * a valid hash` when the hash is malformed or no call compiled it. With `yieldTurn`, as `loadFilterInTurn`.
 */
export async function namedFilter(uow: UnitOfWork, hash: string, yieldTurn?: () => Promise<void>): Promise<CompiledFilter> {
  if (!HASH.test(hash)) throw new BadRequest('hash must be a valid hash');
  let filter: CompiledFilter | undefined;
  try {
    filter = await loadFilterInTurn(uow, hash, yieldTurn);
  } catch (error) {
    if (error instanceof DomainError && error.status < 500) throw new BadRequest('hash must be a valid hash');
    throw error;
  }
  if (!filter) throw new BadRequest('hash must be a valid hash');
  return filter;
}

/** Whose day's budget a new definition is charged to (`definition-budget.ts`). */
export interface DefinitionBudgetOwner {
  username: string;
  /** The limiting day's key of `uow.now`. */
  dayKey: string;
  /** The package's `filter_chars_per_day`. */
  limit: number;
}

/**
 * Stages `FilterCompiled` for a definition not yet recorded (a second compile decides nothing). A new
 * definition is charged to `budget`'s day when given (calls give it; an embedder's own tools may not).
 */
export async function registerFilter(uow: UnitOfWork, f: CompiledFilter, budget?: DefinitionBudgetOwner): Promise<void> {
  const { events } = await uow.execute(filterRegistryDecider, filterStream(f.hash), { type: 'RecordFilter', hash: f.hash, text: f.text, at: uow.now });
  if (budget && events.length > 0) {
    await uow.execute(definitionBudgetDecider, definitionBudgetStream(budget.username, budget.dayKey), { type: 'SpendDefinitionChars', chars: f.text.length, at: uow.now, limit: budget.limit });
  }
}

/**
 * A definition that names no other (no `tags` inclusion, no `stream` reference), compiled and judged by
 * the tag limit; `undefined` when it names others, which `compileAndRegister` must load. Validation
 * answers such a definition with no read and no turn of the event loop.
 */
export function standaloneFilter(text: string): CompiledFilter | undefined {
  const f = compileFilter(text);
  if (f.references.length > 0 || f.definition.tags.some((r) => r.type === 'include')) return undefined;
  checkDefinitionLimits(f.counts, 0);
  return f;
}

/**
 * Compiles a definition whose inclusions must name recorded definitions, judges the tag limit with the
 * included rules counted, and (when `register`) records it.
 */
export async function compileAndRegister(uow: UnitOfWork, text: string, opts: { register: boolean; budget?: DefinitionBudgetOwner }): Promise<CompiledFilter> {
  const first = compileFilter(text);
  let included = 0;
  const regexOf = new Map<string, number>();
  for (const r of first.definition.tags) {
    if (r.type !== 'include') continue;
    const f = await loadFilter(uow, r.hash);
    if (!f) throw new BadRequest(`The definition includes tags "${r.hash}", which is not a compiled definition`);
    first.bind(f);
    if (f.definition.body !== null && f.definition.form !== 'tags-only') {
      throw new BadRequest(`tags "${r.hash}" must name a definition of tag rules only (no return block or filter)`);
    }
    included += f.tagRuleCount;
    regexOf.set(r.hash, f.regexInstructions);
  }
  for (const ref of first.references) {
    if (regexOf.has(ref)) continue;
    const f = await loadFilter(uow, ref);
    if (!f) throw new BadRequest(`The definition includes stream "${ref}", which is not a compiled definition`);
    first.bind(f);
    regexOf.set(ref, f.regexInstructions);
  }
  // Each place that names a definition runs its automata again.
  const includedRegex = first.counts.namedDefinitions.reduce((n, h) => n + (regexOf.get(h) ?? 0), 0);
  checkDefinitionLimits(first.counts, included, includedRegex);
  if (opts.register) await registerFilter(uow, first, opts.budget);
  return first;
}

import { BadRequest } from '../engine/errors.ts';
import type { UnitOfWork } from '../engine/unit-of-work.ts';
import { cachedFilter, compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { filterRegistryDecider, filterStream, HASH } from './filter-registry.ts';
import { checkDefinitionLimits } from './limits.ts';

/**
 * The compiled definition recorded under `hash`, ready to match; undefined when no call compiled it.
 * Definitions it includes are loaded first, so `stream` and `tags` inclusions are bound.
 */
export async function loadFilter(uow: UnitOfWork, hash: string, seen: Set<string> = new Set()): Promise<CompiledFilter | undefined> {
  const h = hash.toLowerCase();
  if (!HASH.test(h)) return undefined;
  const state = await uow.load(filterRegistryDecider, filterStream(h));
  if (!state.exists) return undefined;
  seen.add(h);
  // A recorded definition was valid when recorded, so compiling it again cannot throw. Inclusions
  // bind lazily by hash, so loading them after compiling is enough.
  const f = cachedFilter(h) ?? compileFilter(state.text);
  for (const ref of f.references) if (!seen.has(ref)) await loadFilter(uow, ref, seen);
  return f;
}

/** Stages `FilterCompiled` for a definition not yet recorded (a second compile decides nothing). */
export async function registerFilter(uow: UnitOfWork, f: CompiledFilter): Promise<void> {
  await uow.execute(filterRegistryDecider, filterStream(f.hash), { type: 'RecordFilter', hash: f.hash, text: f.text, at: uow.now });
}

/**
 * Compiles a definition whose inclusions must name recorded definitions, judges the tag limit with the
 * included rules counted, and (when `register`) records it.
 */
export async function compileAndRegister(uow: UnitOfWork, text: string, opts: { register: boolean }): Promise<CompiledFilter> {
  const first = compileFilter(text);
  let included = 0;
  for (const r of first.definition.tags) {
    if (r.type !== 'include') continue;
    const f = await loadFilter(uow, r.hash);
    if (!f) throw new BadRequest(`The definition includes tags "${r.hash}", which is not a compiled definition`);
    if (f.definition.body !== null && f.definition.form !== 'tags-only') {
      throw new BadRequest(`tags "${r.hash}" must name a definition of tag rules only (no return block or filter)`);
    }
    included += f.tagRuleCount;
  }
  for (const ref of first.references) {
    if (first.definition.tags.some((r) => r.type === 'include' && r.hash === ref)) continue;
    if (!(await loadFilter(uow, ref))) throw new BadRequest(`The definition includes stream "${ref}", which is not a compiled definition`);
  }
  checkDefinitionLimits(first.counts, included);
  if (opts.register) await registerFilter(uow, first);
  return first;
}

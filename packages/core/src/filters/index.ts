export type { Interaction, CompiledFilter, FilterKind, MatchResult, WorkMeter } from './compiled-filter.ts';
export { compileFilter, readTarget, applyTags, hashCanonical } from './compiled-filter.ts';
export { loadFilter, loadFilterInTurn, namedFilter, registerFilter, compileAndRegister } from './filter-store.ts';
export { filterRegistryDecider, filterStream, type RegisteredFilter, type FilterEvent, type FilterCommand } from './filter-registry.ts';
export { filterHandlers, compileQueryFilter } from './handlers.ts';
export { FILTER_LIMITS, WORK_PER_TURN } from './limits.ts';
export { matchInTurns } from './paced-match.ts';
export type { DpuBreakdown } from './cost.ts';
export type { Definition, Expr, Condition, Operator } from './ast.ts';

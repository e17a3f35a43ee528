import { md5 } from '@noble/hashes/legacy';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { Condition, Definition, Expr } from './ast.ts';
import { DFA_BYTES_PER_INSTRUCTION, type LinearRegex, type WorkMeter } from './linear-regex.ts';
import { conditionAutomata, usesAutomata } from './regex-programs.ts';
import { costOf, type DpuBreakdown } from './cost.ts';
import { compileDefinition, type MatchResult } from './evaluator.ts';
import type { IncludedFilter, Scope, TagOutput } from './scope.ts';
import type { Interaction } from './target-reader.ts';
import { checkDefinitionLimits, checkQueryLimits, checkTextSize, countDefinition, type FilterCounts } from './limits.ts';
import { parseDefinition, type FilterKind } from './parser.ts';
import { printDefinition } from './printer.ts';

export type { Interaction, MatchResult, FilterKind, WorkMeter };
export { applyTags } from './evaluator.ts';
export { readTarget } from './target-reader.ts';

/** A parsed, checked and compiled filter: what every other part of the platform holds. */
export interface CompiledFilter extends IncludedFilter {
  /** 32 lowercase hex: the MD5 of the canonical form. */
  hash: string;
  canonical: string;
  /** The text as given. */
  text: string;
  kind: FilterKind;
  definition: Definition;
  counts: FilterCounts;
  /** Hashes of the definitions this one includes (`stream`, `rule`, `tags`). */
  references: string[];
  /**
   * Whether the filter matches, and its tags. `memo` may be shared by filters judging the same
   * interaction: what one worked out of it (its text tokenized) the others read instead of redoing.
   */
  match(i: Interaction, memo?: Map<string, unknown>, meter?: WorkMeter): MatchResult;
  /**
   * `match` taken in steps: the same result, pausing (yielding) wherever `meter` reaches
   * `WORK_PER_TURN`, inside a long pattern match too; the driver gives the event loop a turn and sets the
   * meter back to 0 at each pause. `matchInTurns` (`paced-match.ts`) drives it.
   */
  matchSteps(i: Interaction, memo: Map<string, unknown> | undefined, meter: WorkMeter): Generator<void, MatchResult, void>;
  /**
   * Drops its automata's DFA caches (bounded, but kept between matches): a caller done with a batch
   * leaves memory as it found it.
   */
  releaseCaches(): void;
  /** The cost breakdown for `/dpu`. */
  cost(): DpuBreakdown;
  /** Holds an included definition so the inclusion keeps working when caches forget it. */
  bind(included: CompiledFilter): void;
}

export function hashCanonical(canonical: string): string {
  return bytesToHex(md5(utf8ToBytes(canonical)));
}

/**
 * Compiled filters are kept by hash and by text. The hash is a content address (the same canonical
 * form always means the same filter), so a process-wide cache can never give a wrong answer; it only
 * saves parsing and lets `stream "<hash>"` find what it includes (`loadFilter` refills it from the store).
 */
/**
 * A least-recently-used map bounded by entry count and by the characters its filters hold, so a few
 * 1 MB definitions cannot crowd memory.
 */
class FilterCache<K> {
  private map = new Map<K, CompiledFilter>();
  private chars = 0;
  /** The entry used last: a client repeating one filter does not move it to the end on every call. */
  private newest: K | undefined;
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}
  get(key: K): CompiledFilter | undefined {
    const f = this.map.get(key);
    if (f && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, f);
      this.newest = key;
    }
    return f;
  }
  set(key: K, f: CompiledFilter): void {
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      this.chars -= weight(old);
    }
    this.map.set(key, f);
    this.newest = key;
    this.chars += weight(f);
    while (this.map.size > this.maxEntries || (this.chars > this.maxChars && this.map.size > 1)) {
      const [k, v] = this.map.entries().next().value as [K, CompiledFilter];
      this.map.delete(k);
      this.chars -= weight(v);
    }
  }
  clear(): void {
    this.map.clear();
    this.chars = 0;
    this.newest = undefined;
  }
}

/**
 * Text, plus what its automata may hold: about 100 bytes an instruction of program and the DFA cache's
 * bound, so the caches' figures bound compiled automata too and not only characters.
 */
const weight = (f: CompiledFilter): number => f.text.length + f.canonical.length + f.counts.regexInstructions * (100 + DFA_BYTES_PER_INSTRUCTION);

const byHash = new FilterCache<string>(5_000, 64 * 1024 * 1024);
// By kind, then text: no key is built per call, and the text a client repeats hashes once.
const byText: Record<FilterKind, FilterCache<string>> = { definition: new FilterCache(5_000, 32 * 1024 * 1024), query: new FilterCache(5_000, 32 * 1024 * 1024) };

/** Empties the caches (tests use it to show that loading from the store alone is enough). */
export function forgetCompiledFilters(): void {
  byHash.clear();
  byText.definition.clear();
  byText.query.clear();
}

/** A definition compiled in this process, by hash (undefined when it has not been seen here). */
export function cachedFilter(hash: string): CompiledFilter | undefined {
  return byHash.get(hash);
}

/**
 * Parses, checks against the limits of its kind, and compiles a filter. Throws BadRequest (400) naming
 * the line and position of a syntax error, or the limit a filter breaks.
 */
export function compileFilter(text: string, opts: { kind?: FilterKind } = {}): CompiledFilter {
  const kind = opts.kind ?? 'definition';
  const hit = byText[kind].get(text);
  if (hit) return hit;
  checkTextSize(text);
  const definition = parseDefinition(text, kind);
  const counts = countDefinition(definition, kind);
  const references = referencesOf(definition);
  if (kind === 'query') checkQueryLimits(counts);
  const includedTags = definition.tags.reduce((n, r) => n + (r.type === 'include' ? (cachedFilter(r.hash)?.tagRuleCount ?? 0) : 0), 0);
  const includedRegex = counts.namedDefinitions.reduce((n, h) => n + (cachedFilter(h)?.regexInstructions ?? 0), 0);
  checkDefinitionLimits(counts, includedTags, includedRegex);
  const canonical = printDefinition(definition);
  const hash = hashCanonical(canonical);
  const bound = new Map<string, CompiledFilter>();
  const resolve = (h: string): CompiledFilter | undefined => bound.get(h) ?? cachedFilter(h);
  const evaluator = compileDefinition(definition, kind, resolve);
  let cost: DpuBreakdown | undefined;
  let automata: LinearRegex[] | undefined;
  const compiled: CompiledFilter = {
    hash,
    canonical,
    text,
    kind,
    definition,
    counts,
    references,
    tagRuleCount: counts.tagRules + includedTags,
    regexInstructions: counts.regexInstructions + includedRegex,
    match: evaluator.match,
    matchSteps: evaluator.matchSteps,
    test: evaluator.test,
    applyTags: evaluator.applyTags as (s: Scope, out: TagOutput) => void,
    testSteps: evaluator.testSteps,
    applyTagsSteps: evaluator.applyTagsSteps,
    cost: () => (cost ??= costOf(definition, (h) => resolve(h)?.cost().dpu)),
    releaseCaches: () => {
      automata ??= conditionsOf(definition).flatMap((c) => (usesAutomata(c) ? conditionAutomata(c, kind) : []));
      for (const re of automata) re.release();
    },
    bind: (included) => {
      if (references.includes(included.hash)) bound.set(included.hash, included);
    },
  };
  byText[kind].set(text, compiled);
  if (kind === 'definition') byHash.set(hash, compiled);
  return compiled;
}

function conditionsOf(d: Definition): Condition[] {
  const out: Condition[] = [];
  const walk = (e: Expr): void => {
    if (e.type === 'cond') out.push(e);
    else if (e.type === 'not') walk(e.item);
    else if (e.type === 'and' || e.type === 'or') e.items.forEach(walk);
  };
  for (const r of d.tags) if (r.type !== 'include') walk(r.body);
  if (d.body) walk(d.body);
  return out;
}

function referencesOf(d: Definition): string[] {
  const out = new Set<string>();
  const walk = (e: import('./ast.ts').Expr): void => {
    if (e.type === 'stream') out.add(e.hash);
    else if (e.type === 'not') walk(e.item);
    else if (e.type === 'and' || e.type === 'or') e.items.forEach(walk);
  };
  for (const r of d.tags) {
    if (r.type === 'include') out.add(r.hash);
    else walk(r.body);
  }
  if (d.body) walk(d.body);
  return [...out];
}

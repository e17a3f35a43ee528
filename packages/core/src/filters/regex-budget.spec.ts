import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { Engine } from '../pipeline/engine.ts';
import { createEngine } from '../platform.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { sourceHandlers } from '../sources/handlers.ts';
import { compileFilter, type Interaction, type WorkMeter } from './compiled-filter.ts';
import { filterHandlers } from './handlers.ts';
import { FILTER_LIMITS, WORK_PER_TURN } from './limits.ts';
import { CONDITION_WORK } from './conditions.ts';
import { compileLinearRegex, dfaBudget, programSizeBound } from './linear-regex.ts';

/** The attack measured: 2,000 tag rules of `a.{900}b` (1.8 M instructions) before one 4 KB ingestion. */
const attack = Array.from({ length: 2000 }, (_, k) => `tag "t${k}" { interaction.content regex_partial "a.{900}b" }`).join('\n') + '\nreturn { interaction.content exists }';

/** `a.{900}b` is 904 instructions; the most of them the budget allows, topped up with a smaller pattern to the exact figure. */
function atBudget(extra: number): string {
  const big = Math.floor(FILTER_LIMITS.regexBudget / 904);
  const rules = Array.from({ length: big }, (_, k) => `tag "t${k}" { interaction.content regex_partial "a.{900}b" }`);
  // `a.{n}b` compiles to n + 4 instructions (n at most 1,000, so `extra` stays within -380..600).
  const rest = FILTER_LIMITS.regexBudget - big * 904 + extra;
  if (rest > 0) rules.push(`tag "rest" { interaction.content regex_partial "a.{${rest - 4}}b" }`);
  return `${rules.join('\n')}\nreturn { interaction.content exists }`;
}

/** 4 KB that passes re2js's prefilter (an `a` and a `b`) and never matches `a.{n}b`: the whole text is read. */
const worstText = 'b' + 'ac'.repeat(2047) + 'a';
const post = (content: string): Interaction => ({ interaction: { content }, fb: { content } });

function outcome(text: string): 'accepted' | BadRequest {
  try {
    compileFilter(text);
    return 'accepted';
  } catch (e) {
    if (e instanceof BadRequest) return e;
    throw e;
  }
}

describe('regular expressions have a budget', () => {
  it("the attack's definition is refused 400 at /validate and /compile, naming the limit and the figure", async () => {
    const time = { now: Date.parse('2018-01-16T21:44:56Z') };
    const clock: Clock = { now: () => time.now };
    const store = new MemoryEventStore();
    const engine = createEngine({ store, clock, ids: seededIds(11) });
    await engine.openAccount({ username: 'mallory', api_key: 'mallory-key-01' });
    const head = await store.head();
    for (const endpoint of ['core.validate', 'core.compile', 'insight.validate', 'insight.compile'] as EndpointId[]) {
      const a = await engine.call({ version: '1.5', endpoint, credentials: { username: 'mallory', apiKey: 'mallory-key-01' }, params: { csdl: attack } });
      expect(a.status).toBe(400);
      expect((a.body as { error: string }).error).toMatch(/^Regular expression budget: .* at most 4000 instructions in all; this one compiles to at least \d+$/);
    }
    const written = await store.readAll(head, 1000);
    expect(written.map((e) => e.type)).not.toContain('FilterCompiled');
  });

  it('refusing the attack compiles no more than the budget and one pattern', () => {
    const e = outcome(attack) as BadRequest;
    expect(e.extra).toEqual({ limit: 'regex budget' });
    const figure = Number(/at least (\d+)$/.exec(e.message)![1]);
    expect(figure).toBeLessThanOrEqual(FILTER_LIMITS.regexBudget + FILTER_LIMITS.regexInstructions);
  });

  test.prop([fc.integer({ min: -380, max: 600 }).chain((d) => fc.constantFrom(d, 0, 1, -1))], { numRuns: 25 })(
    'a definition at most at the budget is accepted and its automata stay within it; one instruction over is refused naming the limit',
    (extra) => {
      const r = outcome(atBudget(extra));
      if (extra <= 0) {
        expect(r).toBe('accepted');
        expect(compileFilter(atBudget(extra)).regexInstructions).toBeLessThanOrEqual(FILTER_LIMITS.regexBudget);
      } else {
        expect((r as BadRequest).extra).toEqual({ limit: 'regex budget' });
        const figure = Number(/this one compiles to at least (\d+)$/.exec((r as BadRequest).message)![1]);
        expect(figure).toBe(FILTER_LIMITS.regexBudget + extra);
      }
    },
  );

  test.prop([fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 3 }), fc.constantFrom('.', '[a-z]', '\\w', 'a')], { numRuns: 40 })(
    'one pattern of at most 2,000 instructions is accepted, a larger one refused naming the per-pattern limit',
    (n, times, atom) => {
      const pattern = `x${atom}{${n}}`.repeat(times);
      const size = compileLinearRegex(pattern).instructions;
      const r = outcome(`interaction.content regex_partial ${JSON.stringify(pattern)}`);
      if (size <= FILTER_LIMITS.regexInstructions) expect(r).toBe('accepted');
      else expect((r as BadRequest).extra).toEqual({ limit: 'regex size' });
    },
  );

  it('a pattern too large to compile is refused from its text, before re2js builds it', () => {
    // 10 KB of `a.{1000}` is 1.3 M instructions: 0.8 s and 57 MB to compile.
    const r = outcome(`interaction.content regex_partial "${'a.{1000}'.repeat(1300)}"`) as BadRequest;
    expect(r.message).toMatch(/^Regular expression size limit: .* at most 2000 instructions; this one compiles to up to \d+$/);
  });

  it('included definitions count each time they are named', async () => {
    const time = { now: Date.parse('2018-01-16T21:44:56Z') };
    const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(3) });
    await engine.openAccount({ username: 'mallory', api_key: 'mallory-key-01' });
    const call = (endpoint: EndpointId, csdl: string) => engine.call({ version: '1.5', endpoint, credentials: { username: 'mallory', apiKey: 'mallory-key-01' }, params: { csdl } });
    const heavy = await call('core.compile', 'interaction.content regex_partial "a.{1000}b"');
    const hash = (heavy.body as { hash: string }).hash;
    const named = (n: number) => Array.from({ length: n }, () => `stream "${hash}"`).join(' or ');
    expect((await call('core.compile', named(3))).status).toBe(200);
    const four = await call('core.validate', named(4));
    expect(four.status).toBe(400);
    expect((four.body as { error: string }).error).toMatch(/^Regular expression budget: .* this one compiles to 4016$/);
  });

  // Held by a property because the size checked before compiling must never be below what re2js builds.
  const atom = fc.constantFrom('a', '.', '[a-c]', '\\d', '\\pL', '[[:alpha:]]', '\\Qa.b\\E', '(?i)k', '\\b', '^', '$');
  const pattern = fc.letrec<{ p: string }>((tie) => ({
    p: fc.oneof(
      { maxDepth: 4, withCrossShrink: true },
      atom,
      fc.tuple(tie('p'), fc.constantFrom('*', '+', '?', '*?', '{3}', '{2,7}', '{4,}', '{0,9}')).map(([p, q]) => `(${p})${q}`),
      fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
      fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(?:${x}|${y})`),
      tie('p').map((x) => `(?P<n>${x})`),
    ),
  })).p;
  test.prop([pattern], { numRuns: 300 })('the bound read from a pattern text is never below its compiled size', (p) => {
    let size: number;
    try {
      size = compileLinearRegex(p).instructions;
    } catch {
      return; // refused by re2js: any bound will do
    }
    expect(programSizeBound(p)).toBeGreaterThanOrEqual(size);
  });

  it('the worst definition the budget allows against a 4 KB interaction: bounded work, a bounded cache, none kept after', () => {
    const f = compileFilter(atBudget(0));
    const meter: WorkMeter = { work: 0 };
    const r = f.match(post(worstText), undefined, meter);
    expect(r.tags).toEqual([]);
    // Every pattern read the whole text: the work is the text times the budget, plus reading the text
    // once (and the condition that it exists), and no more.
    expect(meter.work).toBeGreaterThanOrEqual(worstText.length * FILTER_LIMITS.regexBudget);
    expect(meter.work).toBeLessThanOrEqual(worstText.length * (FILTER_LIMITS.regexBudget + 1) + CONDITION_WORK * (f.definition.tags.length + 2));
    // What re2js keeps per pattern is within its DFA budget (by default it kept up to 8 MB, 6 MB here).
    const patterns = f.definition.tags.map((t) => compileLinearRegex((t as { body: { arg: { value: string } } }).body.arg.value));
    for (const re of patterns) {
      re.find(worstText);
      expect(re.cacheBytes()).toBeGreaterThan(0);
      expect(re.cacheBytes()).toBeLessThanOrEqual(dfaBudget(re.instructions));
      re.release();
      expect(re.cacheBytes()).toBe(0);
    }
  });

  it('recording yields by regex work: one 4 KB interaction against two worst definitions pauses inside their patterns', async () => {
    const T0 = Date.parse('2018-01-16T21:44:56Z');
    let turns = 0;
    const store = new MemoryEventStore();
    const engine = new Engine({
      store,
      clock: { now: () => T0 },
      ids: seededIds(5),
      handlers: { ...filterHandlers, ...recordingHandlers, ...sourceHandlers() },
      yieldTurn: async () => {
        turns++;
      },
    });
    await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
    const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string) =>
      engine.call({ version: '1.5', endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
    const source = (await call('source.create', { source_type: 'twitter_gnip', name: 'g', resources: JSON.stringify([{ parameters: { mapping: 'gnip_1' } }]) })).body as { id: string };
    for (const n of [0, -1]) {
      const hash = ((await call('insight.compile', { csdl: atBudget(n).replace('interaction.content exists', 'fb.content exists').replaceAll('interaction.content', 'fb.content') })).body as { hash: string }).hash;
      expect((await call('insight.start', { hash, name: `r${n}`, service: 'facebook' })).status).toBe(200);
    }
    await call('source.start', { id: source.id });
    const a = await call('ingest', { source_id: source.id }, JSON.stringify(post(worstText)));
    expect(a).toMatchObject({ status: 200, body: { accepted: 1 } });
    // 2 × 4 KB × 4,000 instructions = 32.8 M steps: one pattern alone is more than a turn, so the
    // matches pause inside, a turn each time WORK_PER_TURN is spent (a slice stops short of it by less
    // than two characters' work).
    const work = 2 * FILTER_LIMITS.regexBudget * worstText.length;
    expect(904 * worstText.length).toBeGreaterThan(WORK_PER_TURN);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(work / WORK_PER_TURN));
    expect(turns).toBeLessThanOrEqual(Math.ceil(work / (WORK_PER_TURN - 2 * 904)) + 2);
  });
});

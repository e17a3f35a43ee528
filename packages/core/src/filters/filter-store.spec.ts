import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { createEngine } from '../platform.ts';
import { forgetCompiledFilters } from './compiled-filter.ts';
import { compileAndRegister, loadFilter, loadFilterInTurn } from './filter-store.ts';

describe('loading compiled filters by hash', () => {
  it('rebuilds a recorded definition and the ones it includes from the store alone', async () => {
    const clock: Clock = { now: () => Date.parse('2026-01-01T00:00:00Z') };
    const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(1) });
    const { inner, outer } = await engine.command(async (uow) => {
      const inner = await compileAndRegister(uow, 'fb.author.gender == "female"', { register: true });
      const rules = await compileAndRegister(uow, 'tag "coffee" { fb.content contains "coffee" }', { register: true });
      const outer = await compileAndRegister(uow, `tags "${rules.hash}" return { stream "${inner.hash}" and fb.type == "story" }`, { register: true });
      return { inner: inner.hash, outer: outer.hash };
    });
    forgetCompiledFilters();
    const f = await engine.command((uow) => loadFilter(uow, outer));
    expect(f?.hash).toBe(outer);
    // The inclusions are bound to it: forgetting the caches again changes nothing.
    forgetCompiledFilters();
    expect(f!.match({ fb: { type: 'story', content: 'coffee time', author: { gender: 'female' } } })).toEqual({ matched: true, tags: ['coffee'] });
    expect(f!.match({ fb: { type: 'story', content: 'coffee time', author: { gender: 'male' } } }).matched).toBe(false);
    expect((await engine.command((uow) => loadFilter(uow, inner)))?.hash).toBe(inner);
  });

  it('answers undefined for a hash no call compiled, or one that is not a hash', async () => {
    const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => 0 }, ids: seededIds(2) });
    expect(await engine.command((uow) => loadFilter(uow, '0'.repeat(32)))).toBeUndefined();
    expect(await engine.command((uow) => loadFilter(uow, 'not-a-hash'))).toBeUndefined();
  });

  it('ends the turn after compiling a definition the caches forgot, and only then', async () => {
    const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => 0 }, ids: seededIds(3) });
    const hash = await engine.command(async (uow) => (await compileAndRegister(uow, 'fb.content regex_partial "a.{900}b"', { register: true })).hash);
    let turns = 0;
    const yieldTurn = async (): Promise<void> => {
      turns++;
    };
    expect((await engine.command((uow) => loadFilterInTurn(uow, hash, yieldTurn)))?.hash).toBe(hash);
    expect(turns).toBe(0);
    forgetCompiledFilters();
    expect((await engine.command((uow) => loadFilterInTurn(uow, hash, yieldTurn)))?.hash).toBe(hash);
    expect(turns).toBe(1);
    expect(await engine.command((uow) => loadFilterInTurn(uow, '0'.repeat(32), yieldTurn))).toBeUndefined();
    expect(turns).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { analysisTargetProblem } from '../analysis/targets.ts';
import { TARGETS } from './target-table.ts';
import { targetProblem } from './targets.ts';

const rows = [...TARGETS];

describe('the target table: filters and analysis read the same rows', () => {
  it('each row of the social network table (§3.1) is usable somewhere', () => {
    for (const [target, u] of rows) expect(u.filter || u.query || u.analysis, target).toBe(true);
  });

  it('a child target is always an analysis target', () => {
    expect(rows.filter(([, u]) => u.child && !u.analysis).map(([t]) => t)).toEqual([]);
  });

  it('a recording filter may name exactly the IF rows, a query filter exactly the QF rows', () => {
    for (const [target, u] of rows) {
      expect(targetProblem(target, 'definition') === null, `${target} in a definition`).toBe(u.filter);
      expect(targetProblem(target, 'query') === null, `${target} in a query filter`).toBe(u.query);
    }
  });

  it('analysis counts exactly the AN rows and nests exactly the CH rows', () => {
    for (const [target, u] of rows) {
      expect(analysisTargetProblem(target, false) === null, `${target} analysed`).toBe(u.analysis);
      expect(analysisTargetProblem(target, true) === null, `${target} as a child`).toBe(u.child);
    }
  });

  it('a path in a modelled namespace that is not a row exists for neither', () => {
    for (const target of ['fb.nope', 'interaction.nope', 'links.nope']) {
      expect(targetProblem(target, 'definition')).toMatch(/does not exist/);
      expect(analysisTargetProblem(target, false)).toMatch(/cannot be analysed/);
    }
  });

  it('the open namespaces are open to both: any li.* path, any namespaced tag in a query', () => {
    for (const target of ['li.user.member.country', 'interaction.tag_tree.automotive.brand']) {
      expect(targetProblem(target, 'query')).toBeNull();
      expect(analysisTargetProblem(target, true)).toBeNull();
    }
  });
});

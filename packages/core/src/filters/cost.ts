import type { Definition, Expr, Operator } from './ast.ts';

/**
 * The processing cost (DPU) of a definition, per operator and target. The platform published only a
 * few figures (docs/filters.md#cost-dpu): `contains` and `substr` cost 0.1 a use, a one-phrase
 * `contains_any` 0.2, tag rules cost their conditions. The rest follows the published direction: list
 * operators, regular expressions and geo cost more, and lists grow with their length. Figures are kept
 * in hundredths so sums print as the platform's short decimals ("0.4", not "0.30000000000000004").
 */
export interface DpuBreakdown {
  dpu: number;
  detail: Record<string, { count: number; dpu: number; targets: Record<string, { count: number; dpu: number }> }>;
}

const BASE: Record<Operator, number> = {
  contains: 10,
  substr: 10,
  exists: 10,
  '==': 10,
  '!=': 10,
  '<': 10,
  '>': 10,
  '<=': 10,
  '>=': 10,
  in: 10,
  url_in: 10,
  contains_any: 20,
  contains_all: 20,
  contains_near: 20,
  wildcard: 20,
  regex_partial: 30,
  regex_exact: 30,
  geo_box: 20,
  geo_radius: 20,
  geo_polygon: 30,
};

/** Each further ten list items add 0.1 to a list operator. */
function hundredths(op: Operator, items: number): number {
  return BASE[op] + Math.max(0, Math.ceil(items / 10) - 1) * 10;
}

/** `stream "<hash>"` costs what the included definition costs, when known. */
export type IncludedCost = (hash: string) => number | undefined;

export function costOf(d: Definition, included: IncludedCost = () => undefined): DpuBreakdown {
  const detail: DpuBreakdown['detail'] = {};
  const cents: Record<string, { count: number; c: number; targets: Record<string, { count: number; c: number }> }> = {};
  const add = (op: string, target: string, c: number): void => {
    const o = (cents[op] ??= { count: 0, c: 0, targets: {} });
    o.count++;
    o.c += c;
    const t = (o.targets[target] ??= { count: 0, c: 0 });
    t.count++;
    t.c += c;
  };
  const walk = (e: Expr): void => {
    switch (e.type) {
      case 'and':
      case 'or':
        e.items.forEach(walk);
        return;
      case 'not':
        walk(e.item);
        return;
      case 'stream': {
        const dpu = included(e.hash);
        add('stream', e.hash, dpu === undefined ? 10 : Math.round(dpu * 100));
        return;
      }
      case 'cond': {
        const a = e.arg;
        const items = a?.kind === 'list' ? a.items.length : a?.kind === 'ints' ? a.values.length : a?.kind === 'near' ? a.words.length : 1;
        add(e.op, e.target, hundredths(e.op, items));
      }
    }
  };
  for (const r of d.tags) {
    if (r.type === 'include') {
      const dpu = included(r.hash);
      add('tags', r.hash, dpu === undefined ? 10 : Math.round(dpu * 100));
    } else walk(r.body);
  }
  if (d.body) walk(d.body);
  let total = 0;
  for (const [op, o] of Object.entries(cents)) {
    total += o.c;
    const targets: Record<string, { count: number; dpu: number }> = {};
    for (const [t, v] of Object.entries(o.targets)) targets[t] = { count: v.count, dpu: v.c / 100 };
    detail[op] = { count: o.count, dpu: o.c / 100, targets };
  }
  // The simplest rule costs 0.1: no definition is free.
  return { dpu: Math.max(total, 10) / 100, detail };
}

/** The compile/validate body's `dpu`: a decimal string ("0.1", "1.25"). */
export function dpuText(dpu: number): string {
  return String(Math.round(dpu * 100) / 100);
}

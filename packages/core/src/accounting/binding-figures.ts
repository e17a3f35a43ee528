import { figuresOf, windowAt, type AllowanceLine, type Credits, type RateFigures } from './credit-window.ts';

export function figuresAfter(credits: Credits, line: AllowanceLine, cost: number, now: number): RateFigures {
  return figuresOf(windowAt(credits, line.key, now), line.limit, cost, now);
}

/**
 * The figures of the allowance that binds an identity's call (docs/contract.md#hourly-allowances: its limit narrows the
 * account's): of the lines counted in credits like the reported one, the one with the least left, the
 * narrower on a tie. So a client reading the headers sees the identity's limit coming, not a sudden 429.
 * (`analyze_queries` counts queries, not credits: analyze calls report the account's analyze figures.)
 */
export function bindingFigures(credits: Credits, reported: AllowanceLine, lines: readonly AllowanceLine[], cost: number, now: number): RateFigures {
  let binding = figuresAfter(credits, reported, cost, now);
  if (reported.key !== 'general') return binding;
  for (const line of lines) {
    if (line.key === reported.key || !line.key.endsWith(':general')) continue;
    const f = figuresAfter(credits, line, cost, now);
    if (f.remaining < binding.remaining || (f.remaining === binding.remaining && f.limit < binding.limit)) binding = f;
  }
  return binding;
}

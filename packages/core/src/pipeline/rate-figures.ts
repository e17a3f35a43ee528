import type { Account } from '../accounting/account.ts';
import { figuresOf, windowAt, type AllowanceLine, type Credits, type RateFigures } from '../accounting/credit-window.ts';
import type { Endpoint } from '../catalogue/endpoints.ts';
import { atLeast, type VersionId } from '../catalogue/versions.ts';
import type { DomainError } from '../calls/errors.ts';
import type { CallAnswer } from '../handling/handler.ts';

/** Rate-limit refusals answer 403 before API 1.2 and 429 from 1.2 (docs/contract.md#versions). */
export const rateLimitStatus = (version: VersionId): number => (atLeast(version, '1.2') ? 429 : 403);

/** The allowance a response reports: the one its endpoint draws from (task create reports the general one). */
export function reportedLine(account: Account, endpoint: Endpoint): AllowanceLine | undefined {
  switch (endpoint.allowance) {
    case 'general':
    case 'task-slots':
      return { key: 'general', limit: account.package.credits_per_hour, cost: endpoint.cost };
    case 'analyze':
      return { key: 'analyze', limit: account.package.analyze_credits_per_hour, cost: endpoint.cost };
    case 'none':
      return undefined;
  }
}

/** The lines a call made with the account's own key draws from (`main`: its reported line). */
export function accountLines(main: AllowanceLine | undefined, endpoint: Endpoint): AllowanceLine[] {
  return !main || endpoint.allowance === 'task-slots' ? [] : [main];
}

/** The figures before any charge: what a denial, a refusal before charging or a 5xx reports. */
export function figuresBefore(credits: Credits, reported: AllowanceLine | undefined, endpoint: Endpoint, now: number): RateFigures | undefined {
  return reported ? figuresOf(windowAt(credits, reported.key, now), reported.limit, endpoint.cost, now) : undefined;
}

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

export const withRate = (rate: RateFigures | undefined): { rate?: RateFigures } => (rate ? { rate } : {});

/** A domain error as an answer, with the figures it reports (a 429 is a 403 before API 1.2). */
export function errorAnswer(error: DomainError, rate?: RateFigures, version?: VersionId): CallAnswer {
  const status = error.status === 429 && version ? rateLimitStatus(version) : error.status;
  const headers = 'allow' in error ? { Allow: (error as unknown as { allow: string[] }).allow.join(', ') } : undefined;
  return { status, body: { error: error.message, ...error.extra }, ...(rate ? { rate } : {}), ...(headers ? { headers } : {}) };
}

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
    case 'reports-general':
      return { key: 'general', limit: account.package.credits_per_hour, cost: endpoint.cost };
    case 'analyze':
      return { key: 'analyze', limit: account.package.analyze_credits_per_hour, cost: endpoint.cost };
    case 'none':
      return undefined;
  }
}

/** The lines a call made with the account's own key draws from (`main`: its reported line). */
export function accountLines(main: AllowanceLine | undefined, endpoint: Endpoint): AllowanceLine[] {
  return !main || endpoint.allowance === 'task-slots' || endpoint.allowance === 'reports-general' ? [] : [main];
}

/**
 * The common call's reported line and the lines it draws (`accountLines`), kept for the last package and
 * endpoint asked: a package is one object through every state of its account (an evolve copies only what
 * changes), so a busy account's calls build neither per call. The caller reads them and never changes
 * them (a charge copies what it records); an identity's lines, which grow, are built per call elsewhere.
 */
export class CommonLines {
  private package: Account['package'] | undefined = undefined;
  private endpoint: Endpoint | undefined = undefined;
  reported: AllowanceLine | undefined = undefined;
  lines: readonly AllowanceLine[] = [];

  /** Makes `reported` and `lines` those of this account and endpoint. */
  of(account: Account, endpoint: Endpoint): this {
    if (account.package !== this.package || endpoint !== this.endpoint) {
      this.package = account.package;
      this.endpoint = endpoint;
      this.reported = reportedLine(account, endpoint);
      this.lines = accountLines(this.reported, endpoint);
    }
    return this;
  }
}

/** The figures before any charge: what a denial, a refusal before charging or a 5xx reports. */
export function figuresBefore(credits: Credits, reported: AllowanceLine | undefined, endpoint: Endpoint, now: number): RateFigures | undefined {
  return reported ? figuresOf(windowAt(credits, reported.key, now), reported.limit, endpoint.cost, now) : undefined;
}

/**
 * The figures of an answer that charges nothing though the account is known (a denied account, a reused
 * or refused idempotency key, a 5xx): cost 0, since the headers say what was charged and a client reads
 * cost over remaining as a rate limit, which this is not.
 */
export function figuresUncharged(credits: Credits, reported: AllowanceLine | undefined, now: number): RateFigures | undefined {
  return reported ? figuresOf(windowAt(credits, reported.key, now), reported.limit, 0, now) : undefined;
}

// What an allowance reports after a charge, for the call path and the stream alike.
export { bindingFigures, figuresAfter } from '../accounting/binding-figures.ts';

export const withRate = (rate: RateFigures | undefined): { rate?: RateFigures } => (rate ? { rate } : {});

/** A domain error as an answer, with the figures it reports (a 429 is a 403 before API 1.2). */
export function errorAnswer(error: DomainError, rate?: RateFigures, version?: VersionId): CallAnswer {
  const status = error.status === 429 && version ? rateLimitStatus(version) : error.status;
  const headers = 'allow' in error ? { Allow: (error as unknown as { allow: string[] }).allow.join(', ') } : undefined;
  return { status, body: { error: error.message, ...error.extra }, ...(rate ? { rate } : {}), ...(headers ? { headers } : {}) };
}

import { Projection, ProjectionKey, type Projections } from '../kernel/projection.ts';
import type { StoredEvent } from '../kernel/events.ts';
import type { CreditsEvent } from '../accounting/credit-window.ts';
import { HourlyTimes } from '../recording-index/columns.ts';

const PREFIX = 'credits:';

/**
 * The analysis queries `/account/usage` reports, by account and hour: a projection of the charges of
 * `insight.analyze`, so a usage call counts the hours of its span instead of reading every charge the
 * account was ever made (a charge is written on every call).
 */
export class AnalysisQueries extends Projection {
  readonly types = ['CreditsCharged'] as const;
  private accounts = new Map<string, HourlyTimes>();

  /** The account's analysis queries, caught up with everything written so far. */
  async of(username: string): Promise<HourlyTimes | undefined> {
    await this.catchUp();
    return this.accounts.get(username);
  }

  protected forget(): void {
    this.accounts = new Map();
  }

  protected apply(e: StoredEvent): void {
    const data = e.data as CreditsEvent['data'];
    if (data.endpoint !== 'insight.analyze' || !e.stream.startsWith(PREFIX)) return;
    const username = e.stream.slice(PREFIX.length);
    let times = this.accounts.get(username);
    if (!times) this.accounts.set(username, (times = new HourlyTimes()));
    times.add(data.at);
  }
}

export const ANALYSIS_QUERIES = new ProjectionKey<AnalysisQueries>('analysis-queries');

export const analysisQueriesOf = (ctx: { projections: Projections }): AnalysisQueries => ctx.projections.get(ANALYSIS_QUERIES);

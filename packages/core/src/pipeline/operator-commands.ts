import { accountDecider, accountStream, checkNewAccountFields, isWellFormedUsername } from '../accounting/account.ts';
import { creditsDecider, creditsStream, figuresOf, windowAt } from '../accounting/credit-window.ts';
import { readPackageFields, type AccountPackage } from '../accounting/package.ts';
import { NotFound } from '../calls/errors.ts';
import type { AggregateLoader } from '../kernel/aggregates.ts';
import type { EventStore } from '../kernel/event-store.ts';
import type { Clock, Ids } from '../kernel/ports.ts';
import type { Projections } from '../kernel/projection.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';

export interface AccountView {
  username: string;
  package: AccountPackage;
  denied: boolean;
  denied_reason: string | null;
  allowances: Record<'general' | 'analyze', { limit: number; remaining: number; reset: number }>;
}

/** The engine's services the operator's commands run on: its store, cache and projections, and `command`. */
export interface OperatorServices {
  readonly store: EventStore;
  readonly loader: AggregateLoader;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly projections: Projections;
  /** The attempt loop for work outside the call path (`Engine.command`). */
  command<T>(work: (uow: UnitOfWork) => T | Promise<T>): Promise<T>;
}

/**
 * The operator's side of the platform: accounts, packages, denial, views, reset. (Its charge of stream
 * usage is a call, `stream.charge`, judged by `CallJudge` as every charge is.) Each change is one `command` (the attempt loop's atomic write, read guards and retries); the
 * engine answers them as its own methods (`Engine.openAccount` …).
 */
export class OperatorCommands {
  constructor(private readonly engine: OperatorServices) {}

  async openAccount(input: { username: string; api_key?: string; package?: unknown }): Promise<{ username: string; api_key: string; package: AccountPackage }> {
    // Refused before the store is read, as a list of accounts is checked before any is opened.
    const fields = checkNewAccountFields(input);
    const ids = this.engine.ids;
    const apiKey = input.api_key ?? ids.hex(32);
    const account = await this.engine.command(async (uow) =>
      (await uow.execute(accountDecider, accountStream(input.username), {
        type: 'OpenAccount',
        username: input.username,
        apiKey,
        salt: ids.hex(16),
        package: fields,
        at: uow.now,
      })).state,
    );
    return { username: account.username, api_key: apiKey, package: account.package };
  }

  /** A new key for the account (the old one stops working at once); its identities' keys are untouched. */
  async replaceApiKey(username: string, apiKey: string = this.engine.ids.hex(32)): Promise<{ username: string; api_key: string }> {
    await this.engine.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'ReplaceApiKey', apiKey }));
    return { username, api_key: apiKey };
  }

  async changePackage(username: string, fields: unknown): Promise<AccountView> {
    knownShape(username);
    const parsed = readPackageFields(fields);
    await this.engine.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'ChangePackage', fields: parsed }));
    return this.accountView(username);
  }

  async deny(username: string, reason: string): Promise<AccountView> {
    knownShape(username);
    await this.engine.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'DenyAccount', reason }));
    return this.accountView(username);
  }

  async allow(username: string): Promise<AccountView> {
    knownShape(username);
    await this.engine.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'AllowAccount' }));
    return this.accountView(username);
  }

  /**
   * What the operator sees of an account: its streams read to their tails even where the cache is trusted
   * (another process may own the account, and this one's cached state of it be behind), so it is as fresh
   * as a read can be. A view decides nothing, so it goes through no attempt loop and sends no guards:
   * checking them against a busy account's credit stream would only keep it retrying.
   */
  async accountView(username: string): Promise<AccountView> {
    knownShape(username);
    const loader = this.engine.loader;
    const account = (await loader.loadCurrent(accountDecider, accountStream(username))).state;
    if (!account.exists) throw new NotFound(`No account named ${username}`);
    const now = this.engine.clock.now();
    const credits = (await loader.loadCurrent(creditsDecider, creditsStream(username))).state;
    const view = (key: string, limit: number) => {
      const f = figuresOf(windowAt(credits, key, now), limit, 0, now);
      return { limit: f.limit, remaining: f.remaining, reset: f.reset };
    };
    return {
      username: account.username,
      package: account.package,
      denied: account.denied,
      denied_reason: account.deniedReason,
      allowances: {
        general: view('general', account.package.credits_per_hour),
        analyze: view('analyze', account.package.analyze_credits_per_hour),
      },
    };
  }

  /** Empties the store and every cache (the operator's reset). */
  async reset(): Promise<void> {
    await this.engine.store.clear();
    this.engine.loader.clear();
    for (const projection of this.engine.projections) projection.reset();
  }
}

/** A name outside the username character set names no account: 404 before any store is asked. */
function knownShape(username: string): void {
  if (!isWellFormedUsername(username)) throw new NotFound(`No account named ${JSON.stringify(username)}`);
}

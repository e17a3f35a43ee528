import type { EventStore, StoredEvent } from '@sdp/core/kernel';

/** A charged call as the accounts view shows it: what it cost and when. */
export interface RecentCharge {
  position: number;
  time: number;
  endpoint: string;
  /** The allowance it drew from (`general` or `analyze`). */
  allowance: string;
  cost: number;
}

/** Events read a page: the log's largest events (recorded interactions) are about 128 KiB, so a page stays near 64 MiB. */
const PAGE = 500;
const RECENT = 8;

/**
 * The accounts the log holds, and each one's latest charges, kept by following the log from where it
 * last read (the store has no list of streams). A reset empties the store; the event at the remembered
 * position then differs (or is gone), and the directory starts over.
 */
export class AccountDirectory {
  private position = 0;
  private lastId: string | undefined;
  private readonly accounts = new Map<string, RecentCharge[]>();
  private catching: Promise<void> | undefined;

  constructor(private readonly store: EventStore) {}

  /** Usernames in the order their accounts were opened, as of the log's head. */
  async usernames(): Promise<string[]> {
    await this.catchUp();
    return [...this.accounts.keys()];
  }

  /** The account's latest charges, newest first. */
  recentCharges(username: string): RecentCharge[] {
    return this.accounts.get(username) ?? [];
  }

  /** The log position the directory has read to. */
  get head(): number {
    return this.position;
  }

  catchUp(): Promise<void> {
    // Callers arriving while a read runs share it, so two polls never fold the same events twice.
    return (this.catching ??= this.read().finally(() => (this.catching = undefined)));
  }

  private async read(): Promise<void> {
    if (this.position > 0) {
      const [at] = await this.store.readAll(this.position - 1, 1);
      if (!at || at.id !== this.lastId) this.forget();
    }
    for (;;) {
      const page = await this.store.readAll(this.position, PAGE);
      for (const e of page) this.fold(e);
      if (page.length < PAGE) return;
    }
  }

  private forget(): void {
    this.position = 0;
    this.lastId = undefined;
    this.accounts.clear();
  }

  private fold(e: StoredEvent): void {
    this.position = e.position;
    this.lastId = e.id;
    if (e.type === 'AccountOpened' && e.stream.startsWith('account:')) {
      this.accounts.set(e.stream.slice('account:'.length), []);
    } else if (e.type === 'CreditsCharged' && e.stream.startsWith('credits:')) {
      const recent = this.accounts.get(e.stream.slice('credits:'.length));
      if (!recent) return;
      const data = e.data as { endpoint?: string; lines?: { key: string; cost: number }[] };
      const line = data.lines?.find((l) => l.key === 'general' || l.key === 'analyze') ?? data.lines?.[0];
      recent.unshift({ position: e.position, time: e.time, endpoint: data.endpoint ?? '?', allowance: line?.key ?? 'general', cost: line?.cost ?? 0 });
      if (recent.length > RECENT) recent.pop();
    }
  }
}

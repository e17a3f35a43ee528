import type { StoredEvent } from '../kernel/events.ts';
import type { EventStore } from '../kernel/event-store.ts';
import { LogProcessor } from '../kernel/log-processor.ts';
import type { PlatformEvent } from '../platform-events.ts';
import { accountOfStream, asPlatformEvent } from '../platform-log.ts';

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
/** Charges kept per account, newest. */
export const RECENT_CHARGES_KEPT = 8;
/** The only events the directory reads: the store is asked for nothing else. */
const FOLDED: readonly PlatformEvent['type'][] = ['AccountOpened', 'CreditsCharged'];

/**
 * A read model: the accounts the log holds, and each one's latest charges, kept by following the log
 * from where it last read (the store has no list of streams), as the console's account list shows them. A reset empties the store; the event at the remembered
 * position then differs (or is gone), and the directory starts over.
 */
export class AccountDirectory {
  /** The log read from where it last stopped; a reset (the event at its checkpoint gone or another) starts it over. */
  private readonly log: LogProcessor;
  private readTo = 0;
  private readonly accounts = new Map<string, RecentCharge[]>();

  constructor(private readonly store: EventStore) {
    this.log = new LogProcessor(store, (page) => page.forEach((e) => this.fold(e)), {
      types: FOLDED,
      after: 0,
      pageSize: PAGE,
      resetCheck: 'event',
      onCleared: () => {
        this.readTo = 0;
        this.accounts.clear();
      },
    });
  }

  /** Usernames in the order their accounts were opened, as of the log's head. */
  async usernames(): Promise<string[]> {
    await this.catchUp();
    return [...this.accounts.keys()];
  }

  /** The account's latest charges, newest first. */
  recentCharges(username: string): RecentCharge[] {
    return this.accounts.get(username) ?? [];
  }

  /** The log position the directory has read to (events of other types up to it were passed over). */
  get head(): number {
    return Math.max(this.log.position, this.readTo);
  }

  async catchUp(): Promise<void> {
    // Read first: every event at or below it is visible to the reads that follow (appends are serialized).
    const head = await this.store.head();
    await this.log.catchUp();
    this.readTo = head >= this.log.position ? head : this.log.position;
  }

  private fold(stored: StoredEvent): void {
    const e = asPlatformEvent(stored);
    if (e?.type === 'AccountOpened') {
      const username = accountOfStream(e.stream);
      if (username !== undefined) this.accounts.set(username, []);
    } else if (e?.type === 'CreditsCharged') {
      const recent = this.accounts.get(accountOfStream(e.stream) ?? '');
      if (!recent) return;
      const { lines, endpoint } = e.data;
      const line = lines.find((l) => l.key === 'general' || l.key === 'analyze') ?? lines[0];
      recent.unshift({ position: e.position, time: e.time, endpoint, allowance: line?.key ?? 'general', cost: line?.cost ?? 0 });
      if (recent.length > RECENT_CHARGES_KEPT) recent.pop();
    }
  }
}

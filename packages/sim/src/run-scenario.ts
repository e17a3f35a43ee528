import { ManualClock } from '@sdp/clock';
import { MATCHED_TYPE, RECORDED_TYPE, RELAY_STREAM_PREFIX, recordedCountsOnly } from '@sdp/core/internal';
import { createEngine, forgettableCharge, RecordingIndex, taskQueues, type AccountPackage, type Engine, type LimitingDayMode, type HandlerTable } from '@sdp/core';
import { LogProcessor, MemoryEventStore, seededIds, type EventStore, type StoredEvent } from '@sdp/core/kernel';
import { limitingDays, type LimitingDayRow } from './limiting-days.ts';
import type { Scenario } from './scenario.ts';
import { SimClient, type SetupOutcome } from './sim-client.ts';
import { StreamConsumer } from './stream-consumer.ts';
import { FirehoseFeed } from './firehose-feed.ts';
import { UsageLedger, type AccountTotals, type HourRow } from './usage-ledger.ts';

const HOUR = 3_600_000;

export interface RunOptions {
  /** Extra endpoint handlers, as an embedder passes them to `createEngine` (their own endpoints). */
  handlers?: HandlerTable;
  /** Runs every account under this package instead of its own (what `--compare` does). */
  packageOverride?: { name: string; fields: Partial<AccountPackage> };
  /** Told of progress (0..1) after every simulated hour. */
  progress?: (done: number) => void;
  store?: EventStore;
}

/** What a run found, as plain data (it crosses from a worker thread and into the reports). */
export interface SimFigures {
  scenario: { name: string; start: string; end: string; durationMs: number; seed: number; version: string; limitingDay: LimitingDayMode };
  /** The package every account ran under, when the run was one of a comparison. */
  packageName: string | null;
  packages: Record<string, AccountPackage>;
  hours: HourRow[];
  totals: AccountTotals[];
  setup: SetupOutcome[];
  /** Recording capacity per account and limiting day, with the day's limit and bounds. */
  limitingDays: LimitingDayRow[];
  /** Minute series for charts, per account. */
  series: Record<string, { remaining: number[]; queued: number[]; limit: number }>;
  /** Calls and stream charges sent to the engine. */
  simulatedCalls: number;
  wallMs: number;
  notes: string[];
}

/**
 * A run's figures with the engine and ledger it ran on, to look further into. Without a `store` of the
 * run's own, the engine's recording index holds the interactions only if the scenario read them
 * (docs/simulator.md#what-a-run-keeps); it counts them otherwise.
 */
export interface SimResult extends SimFigures {
  engine: Engine;
  ledger: UsageLedger;
}

/**
 * Runs a scenario through the platform's own engine on a manual clock: every call, the stream's
 * included, is an `engine.call`, judged by the same rules a server applies, as fast as the machine allows.
 */
export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<SimResult> {
  const wallStart = performance.now();
  if (options.store) return run(scenario, options, 'kept', {}, wallStart);
  // First keeping recorded interactions for the first hour only: if nothing read one in it, the index
  // then counts them and keeps none. A read of one after that (an analysis, a sample, push, historics)
  // ends the run at its hour's end, and the scenario runs again from the start with them kept. The same
  // seed gives the same run, so the reports are the same.
  const first: Attempt = {};
  try {
    const counted = await run(scenario, options, 'first-hour', first, wallStart);
    if (!first.index!.interactionsAsked) return counted;
  } catch (error) {
    if (!first.index?.interactionsAsked) throw error;
  }
  return run(scenario, options, 'kept', {}, wallStart);
}

/** What the caller of a run can look at when it ends, however it ends: the recording index it made. */
interface Attempt {
  index?: RecordingIndex;
}

/** Ends a run at the end of an hour in which its counting index was asked for an interaction. */
class AskedForInteractions extends Error {}

async function run(scenario: Scenario, options: RunOptions, interactions: 'kept' | 'first-hour', attempt: Attempt, wallStart: number): Promise<SimResult> {
  const clock = new ManualClock(scenario.start);
  const end = scenario.start + scenario.duration;
  const ledger = new UsageLedger(scenario.start, scenario.duration);
  // The ledger reads the engine's events as they are stored (the events of the setup before the run
  // excepted, and nothing after its last hour). With no store given, credit charges are forgotten once
  // a snapshot covers them and never enter the log (only the recording index reads it): a week of calls
  // no longer stays in memory to the end of the run.
  // Recorded interactions are held once, by the recording index, which hears them as they are stored:
  // the store keeps only the counts the capacity aggregate folds, and keeps them out of the log.
  const feed = options.store ? undefined : new EventFeed(ledger);
  const store =
    options.store ??
    new MemoryEventStore({
      compactable: forgettableCharge,
      logged: (e) => !forgettableCharge(e) && e.type !== RECORDED_TYPE,
      heldAs: recordedCountsOnly,
      onStored: (e) => {
        if (e.type === RECORDED_TYPE) engine.recordingIndex.heard(e);
        feed!.stored(e);
      },
    });
  const engine = createEngine({
    store,
    ...(options.store ? {} : { recordingIndex: (attempt.index = new RecordingIndex(store)) }),
    clock,
    ids: seededIds(scenario.seed),
    settings: { limitingDay: scenario.limitingDay },
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  const packages: Record<string, AccountPackage> = {};
  for (const a of scenario.accounts) {
    const fields = options.packageOverride?.fields ?? a.package;
    const opened = await engine.openAccount({ username: a.username, api_key: a.apiKey, package: fields });
    packages[a.username] = opened.package;
    ledger.addAccount(a.username, options.packageOverride?.name ?? a.packageName, opened.package.credits_per_hour);
  }
  const keys = new Map(scenario.accounts.map((a) => [a.username, a.apiKey]));
  const clients: SimClient[] = [];
  const consumers: StreamConsumer[] = [];
  const notes: string[] = [];
  for (const actor of scenario.actors) {
    if (actor.kind === 'calls') {
      const c = new SimClient(actor, keys.get(actor.account)!, engine, clock, ledger, scenario.start, end);
      clients.push(c);
      c.start();
    } else if (actor.kind === 'stream') {
      const c = new StreamConsumer(actor, keys.get(actor.account)!, engine, clock, ledger, scenario.start, notes);
      consumers.push(c);
      c.start();
    }
    else new FirehoseFeed(actor, engine, clock, scenario.start, notes).start();
  }

  // Queue lengths between task answers: each minute, what the core's task slots hold at that instant (a
  // read model: read, never decided on, so nothing is guarded or retried).
  const taskAccounts = [...new Set(scenario.actors.filter((a) => a.kind === 'calls' && a.endpoint === 'tasks.create').map((a) => a.account))];
  if (taskAccounts.length > 0) {
    const sample = async (at: number) => {
      for (const u of taskAccounts) {
        const queues = await taskQueues(engine, u, at);
        ledger.queueLength(u, at, queues.reduce((n, q) => n + q.queued, 0));
      }
      if (at + 60_000 < end) clock.at(at + 60_000, sample);
    };
    clock.at(scenario.start, sample);
  }

  // The ledger folds events as the engine does, through its event schema (a run's own store may hold old ones);
  // on the lean store it hears them as they are stored, written in the current schema.
  const position = await engine.store.head();
  feed?.startAfter(position);
  // On a store given to the run (not the lean one, whose feed hears each event as it is stored), the
  // ledger reads what each hour wrote through the kernel's log processor, from where it last stopped.
  const hourly = feed ? undefined : new LogProcessor(engine.store, (events) => ledger.recordEvents(events), { after: position });
  for (let h = 0; h < ledger.hours; h++) {
    const hourEnd = Math.min(end, scenario.start + (h + 1) * HOUR) - 1;
    await clock.advanceTo(hourEnd);
    // Stream consumers record the hour's deliveries; on the run's own store, what they read of the
    // matched interactions then leaves the log, as a server's stream host drops it.
    for (const c of consumers) await c.catchUp();
    if (!options.store && consumers.length > 0) await store.dropTypes?.([MATCHED_TYPE], await store.head(), RELAY_STREAM_PREFIX);
    // The index's retention, as every read of it applies it first: a run that never reads the index
    // holds no more than one that does.
    await engine.recordingIndex.caughtUp(hourEnd);
    if (engine.recordingIndex.interactionsAsked) throw new AskedForInteractions();
    if (h === 0 && interactions === 'first-hour' && !engine.recordingIndex.interactionsRead) engine.recordingIndex.keepNoInteractions();
    if (feed) {
      if (h === ledger.hours - 1) feed.stop();
    } else {
      await hourly!.catchUp();
    }
    for (const a of scenario.accounts) {
      const view = await engine.accountView(a.username);
      ledger.closeHour(a.username, h, hourEnd, view.allowances.general.remaining);
    }
    options.progress?.((h + 1) / ledger.hours);
  }
  ledger.finish();

  const totals = ledger.totals();
  for (const t of totals) {
    for (const [endpoint, n] of Object.entries(t.notImplemented)) {
      notes.push(`${t.account}: ${n} calls to ${endpoint} answered 501 (not built in this engine yet); nothing was charged for them`);
    }
  }
  const setup = clients.flatMap((c) => c.setupOutcomes);
  for (const s of setup) {
    if (s.status >= 300) notes.push(`${s.actor}: setup call ${s.as} (${s.endpoint}) answered ${s.status}: ${JSON.stringify(s.body)}`);
  }
  const series: SimResult['series'] = {};
  for (const a of scenario.accounts) {
    series[a.username] = {
      remaining: Array.from(ledger.remainingSeries(a.username)),
      queued: Array.from(ledger.queueSeries(a.username)),
      limit: packages[a.username]!.credits_per_hour,
    };
  }
  return {
    scenario: {
      name: scenario.name,
      start: new Date(scenario.start).toISOString(),
      end: new Date(end).toISOString(),
      durationMs: scenario.duration,
      seed: scenario.seed,
      version: scenario.version,
      limitingDay: scenario.limitingDay,
    },
    packageName: options.packageOverride?.name ?? null,
    packages,
    hours: ledger.rows(),
    totals,
    setup,
    limitingDays: scenario.accounts.flatMap((a) =>
      limitingDays(scenario.start, end, scenario.limitingDay, packages[a.username]!, a.username, ledger.capacityDays(a.username)),
    ),
    series,
    simulatedCalls: totals.reduce((n, t) => n + t.calls + t.streamCharges, 0),
    wallMs: performance.now() - wallStart,
    notes,
    engine,
    ledger,
  };
}

/** Hands the ledger the events a run stores between the end of its setup and the end of its last hour. */
class EventFeed {
  private early: StoredEvent[] | undefined = [];
  private after = 0;
  private stopped = false;

  constructor(private readonly ledger: UsageLedger) {}

  stored(e: StoredEvent): void {
    if (this.stopped) return;
    if (this.early) this.early.push(e);
    else if (e.position > this.after) this.ledger.recordEvent(e);
  }

  /** Events up to `position` were the setup's: from here on, each is recorded as it is stored. */
  startAfter(position: number): void {
    this.after = position;
    const early = this.early!;
    this.early = undefined;
    for (const e of early) if (e.position > position) this.ledger.recordEvent(e);
  }

  stop(): void {
    this.stopped = true;
  }
}

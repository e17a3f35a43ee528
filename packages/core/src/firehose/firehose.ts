import { accountDecider, accountStream } from '../accounting/account.ts';
import { packageService } from '../accounting/package-service.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import type { EngineServices } from '../handling/handler.ts';
import { BadRequest, NotFound } from '../calls/errors.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { Interaction } from '../filters/index.ts';
import { recordInteractions, type RecordResult } from '../recordings/record-interactions.ts';
import { RETENTION_MS } from '../recording-index/recording-index.ts';
import { FIREHOSE_SERVICES, FacebookWindow, firehoseBetween, firehoseWindow, type FirehoseService } from './synthetic-interactions.ts';

/**
 * The synthetic firehose an operator switches on per account, so that a fresh server has data. How far
 * it was fed follows from its events (the `FirehoseFed` marks) and, between two marks, from what its
 * feeder holds in memory (`FirehoseProgress`): a mark is written with whatever a chunk recorded, so a
 * crash never records a minute twice, but a span in which nothing matched is marked only once it is
 * `FIREHOSE_MARK_SPAN_MS` long, so a quiet firehose does not fill the log with marks.
 */
export interface FirehoseOptions {
  service: FirehoseService;
  perMinute: number;
  seed: number;
  /** Minutes before the switch to start from, so running recordings get data at once (default 0). */
  backfillMinutes?: number;
}

/** A backfill reaches back at most as far as the index keeps interactions (32 days). */
export const MAX_BACKFILL_MINUTES = 32 * 24 * 60;

export const MAX_PER_MINUTE = 100_000;

/** Reads operator input (JSON) into options, each refusal a 400 naming the field. */
export function readFirehoseOptions(raw: unknown, services: readonly string[]): FirehoseOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BadRequest('firehose options must be a JSON object with service, perMinute and seed');
  const o = raw as Record<string, unknown>;
  const service = o.service ?? 'facebook';
  if (typeof service !== 'string' || !(FIREHOSE_SERVICES as readonly string[]).includes(service)) {
    throw new BadRequest(`firehose service must be one of ${FIREHOSE_SERVICES.join(', ')}`);
  }
  packageService(services, service);
  const perMinute = o.perMinute ?? o.per_minute ?? 60;
  if (typeof perMinute !== 'number' || !Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_PER_MINUTE) {
    throw new BadRequest(`firehose perMinute must be a whole number from 1 to ${MAX_PER_MINUTE}`);
  }
  const seed = o.seed ?? 1;
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) throw new BadRequest('firehose seed must be a whole number');
  const backfill = o.backfillMinutes ?? o.backfill_minutes ?? 0;
  if (typeof backfill !== 'number' || !Number.isInteger(backfill) || backfill < 0 || backfill > MAX_BACKFILL_MINUTES) {
    throw new BadRequest(`firehose backfillMinutes must be a whole number from 0 to ${MAX_BACKFILL_MINUTES}`);
  }
  return { service: service as FirehoseService, perMinute, seed, ...(backfill > 0 ? { backfillMinutes: backfill } : {}) };
}

export interface FirehoseState {
  on: boolean;
  options: FirehoseOptions | null;
  /** Unix ms up to which the firehose has been fed (exclusive). */
  fedUntil: number;
}

export type FirehoseEvent =
  | DomainEvent<'FirehoseSwitchedOn', { options: FirehoseOptions; from: number }>
  | DomainEvent<'FirehoseSwitchedOff', { at: number }>
  | DomainEvent<'FirehoseFed', { until: number }>;

export type FirehoseCommand =
  | { type: 'SwitchOn'; options: FirehoseOptions; at: number }
  | { type: 'SwitchOff'; at: number }
  | { type: 'MarkFed'; until: number };

export const firehoseStream = (username: string): string => `firehose:${username}`;

/** The events that say whether an account's firehose is on, for readers that find them by type. */
export const FIREHOSE_SWITCH_TYPES = ['FirehoseSwitchedOn', 'FirehoseSwitchedOff'] as const satisfies readonly FirehoseEvent['type'][];

export const firehoseDecider: Decider<FirehoseState, FirehoseCommand, FirehoseEvent> = {
  name: 'firehose.v1',
  initialState: () => ({ on: false, options: null, fedUntil: 0 }),
  decide(command, state) {
    switch (command.type) {
      case 'SwitchOn':
        if (state.on && JSON.stringify(state.options) === JSON.stringify(command.options)) return [];
        return [
          {
            type: 'FirehoseSwitchedOn',
            data: { options: command.options, from: Math.max(command.at - (command.options.backfillMinutes ?? 0) * 60_000, state.fedUntil) },
          },
        ];
      case 'SwitchOff':
        return state.on ? [{ type: 'FirehoseSwitchedOff', data: { at: command.at } }] : [];
      case 'MarkFed':
        return command.until > state.fedUntil ? [{ type: 'FirehoseFed', data: { until: command.until } }] : [];
    }
  },
  evolve: evolveWith<FirehoseState, FirehoseEvent>({
    FirehoseSwitchedOn(s, d) {
      s.on = true;
      s.options = d.options;
      s.fedUntil = d.from;
    },
    FirehoseSwitchedOff(s) {
      s.on = false;
    },
    FirehoseFed(s, d) {
      s.fedUntil = d.until;
    },
  }),
};

async function accountIn(uow: UnitOfWork, username: string) {
  const account = await uow.load(accountDecider, accountStream(username));
  if (!account.exists) throw new NotFound(`No account named ${username}`);
  return account;
}

/** Feeds one window of a seed's firehose to an account's running recordings, in batches. */
export async function feed(engine: EngineServices, username: string, options: FirehoseOptions, fromMs: number, toMs: number, batchSize = 5_000): Promise<RecordResult> {
  const total: RecordResult = { accepted: 0, recorded: 0 };
  let batch: Interaction[] = [];
  const flush = async () => {
    const items = batch;
    batch = [];
    const r = await engine.command(async (uow) => {
      const account = await accountIn(uow, username);
      return recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, items);
    });
    total.accepted += r.accepted;
    total.recorded += r.recorded;
  };
  for (const i of firehoseBetween(options.seed, options.service, options.perMinute, fromMs, toMs)) {
    batch.push(i);
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  return total;
}

export async function switchFirehoseOn(engine: EngineServices, username: string, raw: unknown): Promise<FirehoseState> {
  return engine.command(async (uow) => {
    const account = await accountIn(uow, username);
    const options = readFirehoseOptions(raw, account.package.services);
    return (await uow.execute(firehoseDecider, firehoseStream(username), { type: 'SwitchOn', options, at: uow.now })).state;
  });
}

export async function switchFirehoseOff(engine: EngineServices, username: string): Promise<FirehoseState> {
  return engine.command(async (uow) => {
    await accountIn(uow, username);
    return (await uow.execute(firehoseDecider, firehoseStream(username), { type: 'SwitchOff', at: uow.now })).state;
  });
}

const CHUNK_MS = 10 * 60_000;
/**
 * About how many interactions one chunk holds at most: at a high rate a chunk is shorter than ten
 * minutes (down to a second), so what one step of a catch-up holds the event loop for stays bounded.
 */
export const FIREHOSE_CHUNK_ITEMS = 5_000;

/**
 * The longest span a feeder goes on past its last mark while nothing it feeds is recorded. A restart
 * (or another process) feeds that span again from the mark: nothing in it was recorded, so nothing is
 * recorded twice; a recording started within it gets those minutes as a backfill would give them.
 */
export const FIREHOSE_MARK_SPAN_MS = 10 * 60_000;

/**
 * How far a feeder got past the firehose's last mark: `[mark, until)` was offered to the running
 * recordings and nothing of it recorded. Held in memory between rounds; it counts only while the
 * firehose's mark is still `mark` (a switch, or another feeder's mark, makes it stale).
 */
export interface FirehoseProgress {
  mark: number;
  until: number;
}

export interface FirehoseStep extends RecordResult {
  /** Where the feeder stands after this step; `mark === until` when the step wrote its mark. */
  progress: FirehoseProgress;
}

/** A chunk's span at `perMinute`: minutes are drawn alone (`firehoseMinute`), so any cut gives the same interactions. */
const chunkMs = (perMinute: number): number => Math.max(1_000, Math.min(CHUNK_MS, Math.floor((FIREHOSE_CHUNK_ITEMS / perMinute) * 60_000)));

/** Where feeding goes on from: the feeder's progress when it still stands on the firehose's mark, else the mark. */
const fedUntil = (state: FirehoseState, progress: FirehoseProgress | undefined): number =>
  progress && progress.mark === state.fedUntil && progress.until > state.fedUntil ? progress.until : state.fedUntil;

/**
 * Feeds one chunk of a switched-on firehose towards the clock's now, from the feeder's `progress` (or the
 * last mark). When the chunk recorded anything, its `FirehoseFed` mark commits in the same write, so a
 * crash never records a minute twice. When nothing matched and the caller holds progress (`progress`
 * given, `null` before its first step), the mark waits until the unmarked span reaches
 * `FIREHOSE_MARK_SPAN_MS` and the step answers the progress to hold instead; a caller that holds nothing
 * (`progress` left out) gets every step marked. Windows older than the index retention are skipped.
 * Answers `null` when there was nothing left to feed.
 */
export async function catchUpFirehoseStep(engine: EngineServices, username: string, until?: number, progress?: FirehoseProgress | null): Promise<FirehoseStep | null> {
  return engine.command(async (uow) => {
    const account = await accountIn(uow, username);
    const state = await uow.load(firehoseDecider, firehoseStream(username));
    if (!state.on || !state.options) return null;
    const from = Math.max(fedUntil(state, progress ?? undefined), uow.now - RETENTION_MS);
    // Up to `until` (a catch-up's start): on the system clock the clock moves during every step, and a
    // catch-up aiming at each step's own now would feed a few milliseconds at a time for ever.
    const to = Math.min(uow.now, until ?? uow.now, from + chunkMs(state.options.perMinute));
    if (to <= from) return null;
    const { seed, service, perMinute } = state.options;
    // The social network's window is offered as rows of draws: only what some filter matches is built.
    const items = service === 'facebook' ? new FacebookWindow(seed, perMinute, from, to) : firehoseWindow(seed, service, perMinute, from, to);
    const r = await recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, items);
    const wrote = uow.appends().some((a) => a.events.length > 0);
    if (progress !== undefined && !wrote && to - state.fedUntil < FIREHOSE_MARK_SPAN_MS) return { ...r, progress: { mark: state.fedUntil, until: to } };
    await uow.execute(firehoseDecider, firehoseStream(username), { type: 'MarkFed', until: to });
    return { ...r, progress: { mark: to, until: to } };
  });
}

/**
 * Writes the mark a feeder's progress stands for (nothing when it is marked already or stale): before a
 * switch, when a feeder stops, or at the end of a catch-up whose caller holds nothing between calls.
 * Answers the progress as it now stands.
 */
export async function markFirehoseFed(engine: EngineServices, username: string, progress: FirehoseProgress): Promise<FirehoseProgress> {
  if (progress.until <= progress.mark) return progress;
  return engine.command(async (uow) => {
    const state = await uow.load(firehoseDecider, firehoseStream(username));
    if (!state.on || fedUntil(state, progress) !== progress.until) return { mark: state.fedUntil, until: state.fedUntil };
    await uow.execute(firehoseDecider, firehoseStream(username), { type: 'MarkFed', until: progress.until });
    return { mark: progress.until, until: progress.until };
  });
}

/**
 * Feeds a switched-on firehose up to the clock's now, chunk by chunk (`catchUpFirehoseStep`), and marks
 * how far it got: a caller that holds no progress between calls (a simulation, a script) resumes exactly
 * there, with one mark per catch-up rather than one per chunk.
 */
export async function catchUpFirehose(engine: EngineServices, username: string): Promise<RecordResult> {
  const total: RecordResult = { accepted: 0, recorded: 0 };
  const until = engine.clock.now();
  let progress: FirehoseProgress | null = null;
  for (let step = await catchUpFirehoseStep(engine, username, until, progress); step; step = await catchUpFirehoseStep(engine, username, until, progress)) {
    total.accepted += step.accepted;
    total.recorded += step.recorded;
    progress = step.progress;
  }
  if (progress) await markFirehoseFed(engine, username, progress);
  return total;
}

export async function firehoseState(engine: EngineServices, username: string): Promise<FirehoseState> {
  return engine.command((uow) => uow.load(firehoseDecider, firehoseStream(username)));
}

/** The operator's handle on the firehose (the server's operator API calls these). */
export const firehose = {
  feed,
  switchOn: switchFirehoseOn,
  switchOff: switchFirehoseOff,
  catchUp: catchUpFirehose,
  catchUpStep: catchUpFirehoseStep,
  mark: markFirehoseFed,
  state: firehoseState,
};

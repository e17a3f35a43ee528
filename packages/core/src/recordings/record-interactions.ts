import { limitingDayOf, type LimitingDay } from '../days/limiting-day.ts';
import type { Account } from '../accounting/account.ts';
import type { EngineSettings } from '../handling/handler.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { Interaction } from '../filters/index.ts';
import { recordingsDecider, recordingsStream, runningRecordings } from './recording.ts';
import { matchInTurns, namedFilter, verdictReadsOnly, type CompiledFilter, type MatchResult, type WorkMeter } from '../filters/index.ts';
import { capacityStream, dailyAccountLimit, dailyCapacityDecider, type OfferedInteraction, type RecordingMatch } from '../recording-index/capacity.ts';
import { RETENTION_MS, type RecordingIndex } from '../recording-index/recording-index.ts';
import { indexTimeOf, serviceOf } from '../recording-index/interaction-facts.ts';
import { streamMatching } from '../streams/match-streams.ts';

/** What recording needs of a call: a `CallContext` has it, and so has an operator's unit of work. */
export interface RecordingContext {
  uow: UnitOfWork;
  account: Account;
  settings: Pick<EngineSettings, 'limitingDay'>;
  now: number;
  /** Gives the event loop a turn (a call's context has it); without it matching never pauses. */
  yieldTurn?: (() => Promise<void>) | undefined;
}

/**
 * Interactions offered before they are built (the synthetic firehose's): each has a text key, and two
 * with one key hold the same `interaction.content` and `fb.content` (present or absent alike). When
 * every filter judging them reads nothing else (`verdictReadsOnly`), each is judged once per key, on an
 * interaction holding only those texts, and only an interaction some filter matches is built; the others
 * would have matched nothing, so what is recorded and relayed is the same as for the built list.
 */
export interface TextKeyedInteractions {
  readonly length: number;
  keyOf(k: number): number;
  /** An interaction holding only the k-th's texts. */
  probe(k: number): Interaction;
  /** One filter's verdicts by key (0 not judged yet, 1 no, 2 yes): the source keeps them, bounded. */
  verdicts(filter: CompiledFilter): Uint8Array;
  /** The k-th interaction, built. */
  build(k: number): Interaction;
}

/** The targets a text key stands for. */
export const TEXT_KEY_TARGETS: ReadonlySet<string> = new Set(['interaction.content', 'fb.content']);

const MATCHED_UNTAGGED: MatchResult = Object.freeze({ matched: true, tags: Object.freeze([]) as unknown as string[] });

const NOT_JUDGED = 0;
const NO_MATCH = 1;
const MATCHED = 2;

/**
 * Whether some filter matches the k-th interaction of a keyed batch (by its key), and each filter's verdict
 * by key; `undefined` when a filter reads more than the texts and every interaction must be built and judged.
 * Judging a key paces by `meter`.
 */
function textScreen(batch: TextKeyedInteractions, filters: readonly CompiledFilter[], meter: WorkMeter, yieldTurn: RecordingContext['yieldTurn']) {
  for (const f of filters) if (!verdictReadsOnly(f, TEXT_KEY_TARGETS)) return undefined;
  const tables = filters.map((f) => batch.verdicts(f));
  // A key is judged once by every filter (the first interaction with it); a heavy filter may pause on it
  // (`matchInTurns`). Every verdict is kept, so a built interaction is judged again only for its tags.
  // The probe and its memo are shared by the filters judging one key (its text folded and tokenized once).
  const judge = (k: number, key: number, from: number, probe = batch.probe(k), memo = new Map<string, unknown>()): boolean | Promise<boolean> => {
    for (let j = from; j < filters.length; j++) {
      const table = tables[j]!;
      if (table[key] !== NOT_JUDGED) continue;
      const judged = matchInTurns(filters[j]!, probe, memo, meter, yieldTurn);
      if (judged instanceof Promise) {
        return judged.then((r) => {
          table[key] = r.matched ? MATCHED : NO_MATCH;
          return judge(k, key, j + 1, probe, memo);
        });
      }
      table[key] = judged.matched ? MATCHED : NO_MATCH;
    }
    for (const table of tables) if (table[key] === MATCHED) return true;
    return false;
  };
  const keep = (k: number): boolean | Promise<boolean> => {
    const key = batch.keyOf(k);
    let any = false;
    for (let j = 0; j < tables.length; j++) {
      const verdict = tables[j]![key];
      if (verdict === NOT_JUDGED) return judge(k, key, j);
      if (verdict === MATCHED) any = true;
    }
    return any;
  };
  return {
    keep,
    /** Filter `j`'s verdict on the texts of `key` when it is known (the interaction need not be judged for it again). */
    known: (j: number, key: number): boolean | undefined => (tables[j]![key] === NOT_JUDGED ? undefined : tables[j]![key] === MATCHED),
  };
}

export interface RecordResult {
  /** Interactions offered. */
  accepted: number;
  /** Interactions kept by at least one running recording (within the capacity caps). */
  recorded: number;
}

/**
 * Offers interactions to the account's running recordings: each recording's filter decides whether it
 * matches and which tags it gets; the day's capacity aggregate decides what is kept. Everything is
 * staged in `ctx.uow` (with what the account's stream subscriptions match), so it commits with the call (or the operator's command) or not at all.
 */
export async function recordInteractions(ctx: RecordingContext, interactions: Interaction[] | TextKeyedInteractions): Promise<RecordResult> {
  const { uow, account, now } = ctx;
  // Whatever enters the platform reaches the account's live stream subscriptions too, in the same
  // write, judged in the same pass as for the recordings (one memo: each text folded and tokenized once).
  const streams = await streamMatching(ctx, interactions);
  const state = await uow.load(recordingsDecider, recordingsStream(account.username));
  const running = interactions.length === 0 ? [] : runningRecordings(state);
  // One after another: a filter compiled afresh ends the turn (`loadFilterInTurn`).
  const filters: CompiledFilter[] = [];
  for (const r of running) filters.push(await namedFilter(uow, r.hash, ctx.yieldTurn));
  const byDay = new Map<string, OfferedInteraction[]>();
  let day: LimitingDay | undefined;
  // Filters often read the same text: one memo (emptied for each interaction) tokenizes it once for all of them.
  const memo = running.length + (streams?.filters ?? 0) > 1 ? new Map<string, unknown>() : undefined;
  // One interaction's text against heavy filters can cost what a thousand plain ones do, so the loop
  // pauses by work (what every operator scanned, `WorkMeter`) and not only by count: once WORK_PER_TURN
  // is spent, between filters or inside a long pattern match (`matchInTurns`), other accounts' calls get a turn.
  const meter: WorkMeter = { work: 0 };
  try {
    if (running.length > 0 || streams) {
      const built = Array.isArray(interactions) ? interactions : undefined;
      const keyed = built ? undefined : (interactions as TextKeyedInteractions);
      const untagged = filters.map((f) => f.definition.tags.length === 0);
      const screen = keyed && textScreen(keyed, streams ? [...filters, ...streams.compiled] : filters, meter, ctx.yieldTurn);
      for (let n = 0; n < interactions.length; n++) {
        let key = -1;
        if (screen) {
          const kept = screen.keep(n);
          if (!(kept instanceof Promise ? await kept : kept)) continue;
          key = keyed!.keyOf(n);
        }
        const interaction = built ? built[n] : keyed!.build(n);
        if (typeof interaction !== 'object' || interaction === null || Array.isArray(interaction)) continue;
        memo?.clear();
        if (streams) {
          const offered = streams.offer(interaction, memo, meter, screen && ((j: number) => screen.known(filters.length + j, key)));
          if (offered) await offered;
        }
        if (running.length === 0) continue;
        const service = serviceOf(interaction);
        // Most interactions match nothing: no list for them.
        let matches: RecordingMatch[] | undefined;
        for (let k = 0; k < running.length; k++) {
          const r = running[k]!;
          if (service !== undefined && r.service !== service) continue;
          const known = screen?.known(k, key);
          if (known === false) continue;
          // A match of a filter without tag rules carries nothing but the verdict, known here already.
          const matching = known && untagged[k] ? MATCHED_UNTAGGED : matchInTurns(filters[k]!, interaction, memo, meter, ctx.yieldTurn);
          const result = matching instanceof Promise ? await matching : matching;
          if (!result.matched) continue;
          const match: RecordingMatch = { recording: r.id, tags: [...result.tags] };
          if (result.tagTree) match.tagTree = result.tagTree;
          if (result.categories?.length) match.categories = [...result.categories];
          (matches ??= []).push(match);
        }
        if (!matches) continue;
        const at = indexTimeOf(interaction, now);
        if (at < now - RETENTION_MS) continue;
        if (!day || at < day.start || at >= day.end) day = limitingDayOf(at, ctx.settings.limitingDay);
        let list = byDay.get(day.key);
        if (!list) byDay.set(day.key, (list = []));
        list.push({ at, interaction, matches });
      }
    }
  } finally {
    // Automata keep DFA caches between matches (bounded by their size); a batch done, they go.
    streams?.release();
    for (const f of filters) f.releaseCaches();
  }
  if (streams) await streams.stage();
  if (running.length === 0) return { accepted: interactions.length, recorded: 0 };
  const accountLimit = dailyAccountLimit(account.package.index_capacity_per_month);
  let recorded = 0;
  for (const [key, items] of byDay) {
    const { events } = await uow.execute(dailyCapacityDecider, capacityStream(account.username, key), {
      type: 'RecordInteractions',
      day: key,
      accountLimit,
      items,
    });
    for (const e of events) if (e.type === 'InteractionsRecorded') recorded += e.data.items.length;
  }
  return { accepted: interactions.length, recorded };
}

export interface RecordedInteraction {
  /** Unix ms the interaction is indexed at. */
  at: number;
  /** The interaction as recorded, with the recording's tags. */
  interaction: Interaction;
}

/**
 * What a recording has kept with `fromMs <= at < toMs` (and still within retention), in the order it
 * was recorded: push delivery reads its deliveries from here.
 */
export async function recordedInteractions(ctx: { recordingIndex: RecordingIndex; now: number }, recordingId: string, fromMs: number, toMs: number): Promise<RecordedInteraction[]> {
  const index = await ctx.recordingIndex.caughtUp(ctx.now);
  const set = index.recording(recordingId);
  if (!set) return [];
  const rows = set.rowsBetween(Math.max(fromMs, ctx.now - RETENTION_MS), toMs);
  const out: RecordedInteraction[] = new Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = { at: set.times.data[rows[k]!]!, interaction: set.docs[rows[k]!]! };
  return out;
}

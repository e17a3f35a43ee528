import type Database from 'better-sqlite3';

/** Stream versions known beyond this many are forgotten (each is read again once, when next appended to). */
const MAX_KNOWN_VERSIONS = 100_000;

/** What the open transaction has written, to take back when a request's savepoint is rolled back. */
export interface HeadsMark {
  written: Map<string, number>;
  writtenIds: Map<string, string>;
  head: number | undefined;
}

/**
 * What this connection knows of the file's stream ends and of the log's head, so an append checks its
 * expected versions (and last event ids) and numbers its events without a query: as committed, and as
 * the open transaction has written. Known only while no other connection has written the file since
 * (`PRAGMA data_version`, read as each group begins); otherwise read again, once per stream.
 */
export class StreamHeads {
  /** Each stream's version as committed. */
  private versions = new Map<string, number>();
  /** The versions the open transaction has written, merged into `versions` once it commits. */
  private written = new Map<string, number>();
  /**
   * The id of each stream's last event, for appends that name the event they expect (`expectedLastId`):
   * as committed, and as the open transaction has written; a stream missing here is read once.
   */
  private lastIds = new Map<string, string>();
  private writtenIds = new Map<string, string>();
  /** The log's last position in the open transaction (its events not yet inserted included). */
  private headPosition: number | undefined;
  private dataVersion: number | undefined;

  constructor(
    private readonly sql: {
      streamVersion: Database.Statement;
      eventIdAt: Database.Statement;
      head: Database.Statement;
      dataVersion: Database.Statement;
    },
  ) {}

  /** A group's transaction began: what another connection wrote since this one last did is unknown. */
  begin(): void {
    const dataVersion = this.sql.dataVersion.get() as number;
    if (dataVersion !== this.dataVersion) this.forget();
    else if (this.versions.size > MAX_KNOWN_VERSIONS) {
      this.versions.clear();
      this.lastIds.clear();
    }
    this.dataVersion = dataVersion;
  }

  /** The stream's version in the open transaction: what it wrote, else what is committed. */
  versionOf(stream: string): number {
    let version = this.written.get(stream) ?? this.versions.get(stream);
    if (version === undefined) {
      version = this.sql.streamVersion.get(stream) as number;
      this.versions.set(stream, version);
    }
    return version;
  }

  /** The id of the stream's last event (at `version`, its version in the open transaction). */
  lastIdOf(stream: string, version: number): string | undefined {
    let id = this.writtenIds.get(stream) ?? this.lastIds.get(stream);
    if (id === undefined) {
      id = this.sql.eventIdAt.get(stream, version) as string | undefined;
      if (id !== undefined) this.lastIds.set(stream, id);
    }
    return id;
  }

  /** The log's last position in the open transaction. */
  head(): number {
    return (this.headPosition ??= this.sql.head.get() as number);
  }

  /** The open transaction wrote up to `version` of `stream`, ending in `lastId`. */
  wrote(stream: string, version: number, lastId: string): void {
    this.written.set(stream, version);
    this.writtenIds.set(stream, lastId);
  }

  /** The open transaction numbered events up to `position`. */
  movedHead(position: number): void {
    this.headPosition = position;
  }

  /** The open transaction committed: what it wrote is what is committed. */
  committed(): void {
    for (const [stream, version] of this.written) this.versions.set(stream, version);
    for (const [stream, id] of this.writtenIds) this.lastIds.set(stream, id);
    this.written.clear();
    this.writtenIds.clear();
  }

  mark(): HeadsMark {
    return { written: new Map(this.written), writtenIds: new Map(this.writtenIds), head: this.headPosition };
  }

  rollbackTo(mark: HeadsMark): void {
    this.written = mark.written;
    this.writtenIds = mark.writtenIds;
    this.headPosition = mark.head;
  }

  /** Nothing known is sure any more (another writer, a rollback, a clear): each is read again. */
  forget(): void {
    this.written.clear();
    this.versions.clear();
    this.writtenIds.clear();
    this.lastIds.clear();
    this.headPosition = undefined;
  }
}

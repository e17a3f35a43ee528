import { fstatSync, writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { AccessEntry } from '@sdp/http';
import { AccessLines } from './access-line.ts';

export interface AccessLog {
  write(entry: AccessEntry): void;
  /**
   * The pino logger the lines go through: access lines are written at `info` while its level allows
   * that, and whatever else is logged through it lands in the same batches, in order.
   */
  readonly logger: Logger;
  /** Hands over what is buffered, waits until the destination has written it all, then closes it. */
  close(): Promise<void>;
}

/**
 * Lines are handed to the destination in batches of this many bytes (about 1,900 access lines), so the
 * file sees one asynchronous write per batch instead of one per request. Each write wakes a thread of
 * libuv's pool, and where that thread shares the server's CPU (the benchmark pins both to one; a busy
 * machine) the event loop loses its CPU around every write: under the http benchmark's load the native
 * write call held 13.8 % of the profile's busy time with 12 KB batches, 3.6 % with 64 KB, 0.4 % with 256 KB.
 */
export const BATCH_BYTES = 262144;

/** A quiet server's lines still reach the file within this long. */
export const FLUSH_MS = 1000;

/**
 * What the destination may hold waiting for the disk, or for the reader of stdout, before it drops
 * batches (256 of them). A flood of requests against a slow disk or a stalled pipe would otherwise grow
 * the server's memory without bound: past it, lines are dropped and counted, and a `warn` line says
 * how many once the destination has caught up.
 */
export const QUEUED_BYTES_MAX = 256 * BATCH_BYTES;

/**
 * One JSON line per request (level, time, method, path, status, ms, username, cost): to stdout, a file,
 * or nowhere. pino is the logger (its level decides, its destination sonic-boom writes); the access
 * line itself is spelled by `AccessLines`, the same text pino's general serialisation would make, at
 * about an eighth of its cost. Lines are encoded straight into a batch buffer and each full batch goes
 * out in one asynchronous write. `close` and the process's exit write every line still buffered.
 */
export function openAccessLog(setting: string, options: { flushMs?: number; queuedBytesMax?: number } = {}): AccessLog | undefined {
  if (setting === 'off') return undefined;
  const queuedMax = options.queuedBytesMax ?? QUEUED_BYTES_MAX;
  if (!Number.isSafeInteger(queuedMax) || queuedMax < 2 * BATCH_BYTES) throw new RangeError(`queuedBytesMax must be a whole number of at least ${2 * BATCH_BYTES} (two batches), not ${queuedMax}`);
  // Buffers, not strings: given a string, sonic-boom measures it, and encodes it again after each write.
  const destination = pino.destination({ dest: setting === 'stdout' ? 1 : setting, sync: false, append: true, mkdir: true, contentMode: 'buffer', maxLength: queuedMax });
  const batch = new ByteBatch(destination);
  // The entry brings its own `time` (first of its fields, so it follows `level`): pino adds none.
  const logger: Logger = pino({ base: null, timestamp: false, formatters: { level: (label) => ({ level: label }) } }, batch);
  const lines = new AccessLines(logger.levels.labels[logger.levels.values.info!]!);
  let writing = logger.isLevelEnabled('info');
  logger.on('level-change', () => (writing = logger.isLevelEnabled('info')));
  let dropped = 0;
  destination.on('drop', (bytes: Buffer) => (dropped += linesIn(bytes)));
  const timer = setInterval(() => {
    batch.flush();
    // Said once there is room again for the line that says it, and then for the lines after it.
    if (dropped > 0 && stateOf(destination)._len + 2 * BATCH_BYTES <= queuedMax) {
      logger.warn({ time: new Date().toISOString(), dropped }, 'access log lines dropped: the destination fell behind');
      dropped = 0;
      batch.flush();
    }
  }, options.flushMs ?? FLUSH_MS);
  timer.unref();
  // A process that exits without close (a second signal, a stop that hung) still writes its lines. A
  // batch already handed to the thread pool reaches the file without the event loop, but only the loop
  // would say when: it gets a moment first, so the lines after it do not land before it.
  // Where the destination is a regular file, its size says when the write in flight has landed: the
  // size at open plus what the writes reported, plus the write in flight. A fixed pause was not enough
  // on a busy machine (the pool's thread had not written yet, and the rest landed before it).
  let sizeAtOpen = -1;
  let landed = 0;
  destination.on('ready', () => {
    try {
      const stat = fstatSync(stateOf(destination).fd);
      if (stat.isFile()) sizeAtOpen = stat.size - landed;
    } catch {
      // Not a file whose size can be read: an exit waits the fixed pause instead.
    }
  });
  destination.on('write', (n: number) => (landed += n));
  const onExit = () => {
    const state = stateOf(destination);
    if (state.destroyed || state.fd < 0) return;
    if (state._writing) awaitWriteInFlight(state.fd, sizeAtOpen < 0 ? -1 : sizeAtOpen + landed + state._writingBuf.length);
    destination.flushSync();
    const pending = batch.take();
    if (pending) writeSync(state.fd, pending);
  };
  process.on('exit', onExit);
  let closing: Promise<void> | undefined;
  return {
    logger,
    write: (entry) => {
      if (writing) batch.write(lines.line(entry));
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        clearInterval(timer);
        process.off('exit', onExit);
        batch.flush();
        // end() writes what is queued after the write in flight, in order, then closes (never fd 1).
        destination.once('close', () => resolve());
        destination.end();
        // After EPIPE (the reader of stdout went away) pino stubs the destination's methods: nothing
        // more is written and no 'close' comes.
        if (Object.hasOwn(destination, 'end')) resolve();
      })),
  };
}

/** How long an exit without close lets a write in flight finish, where nothing tells when it has. */
const EXIT_WAIT_MS = 100;
/** The most an exit waits for a write in flight to reach a file whose size it watches. */
const EXIT_WAIT_MAX_MS = 5000;

/**
 * Blocks (the process is exiting: no event loop will turn again) until the file's size reaches `size`,
 * or for the fixed pause where the size cannot tell (`size` < 0), at most `EXIT_WAIT_MAX_MS`.
 */
function awaitWriteInFlight(fd: number, size: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  if (size < 0) {
    Atomics.wait(cell, 0, 0, EXIT_WAIT_MS);
    return;
  }
  const until = performance.now() + EXIT_WAIT_MAX_MS;
  try {
    while (fstatSync(fd).size < size && performance.now() < until) Atomics.wait(cell, 0, 0, 2);
  } catch {
    // The file went away under the process: nothing left to wait for.
  }
}

/** How many lines a dropped batch held (each ends with a newline). */
function linesIn(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/** sonic-boom's state its types leave out: the file descriptor (-1 while the file opens), whether it was closed, whether a write is in flight and what it writes, and the bytes it holds (in flight and queued). */
const stateOf = (destination: ReturnType<typeof pino.destination>) =>
  destination as unknown as { fd: number; destroyed: boolean; _writing: boolean; _writingBuf: { length: number }; _len: number };

/**
 * Lines are held as text until this many characters (about a hundred lines), then encoded into the
 * batch together: one encode of the joined text costs less than one per line (each a call into the
 * buffer's encoder, which first joins the line's pieces). Bounded, and written on flush and at exit.
 */
export const TEXT_CHARS = 16384;

/**
 * Holds lines as text (`TEXT_CHARS`), encodes them into one buffer, and hands the destination the part
 * not yet handed, as a view (no copy), when the buffer is full or on `flush`. A handed part is never
 * written again, so a buffer is shared by the writes in flight and the lines still coming until it is full.
 */
class ByteBatch implements DestinationStream {
  private buffer = Buffer.allocUnsafe(BATCH_BYTES);
  /** The first byte not yet handed to the destination. */
  private start = 0;
  /** The first free byte. */
  private end = 0;
  /** Lines not yet encoded, and their length in characters. */
  private readonly text: string[] = [];
  private chars = 0;
  constructor(private readonly destination: ReturnType<typeof pino.destination>) {}

  write(line: string): void {
    this.text.push(line);
    if ((this.chars += line.length) >= TEXT_CHARS) this.encode();
  }

  flush(): void {
    this.encode();
    const bytes = this.bytes();
    if (bytes) this.hand(bytes);
  }

  /** Everything not yet handed over (encoded or not), as bytes now counted as handed; nothing is handed. */
  take(): Buffer | undefined {
    const held = this.bytes();
    if (this.text.length === 0) return held;
    const text = Buffer.from(this.joined());
    return held ? Buffer.concat([held, text]) : text;
  }

  /** The held lines, encoded into the buffer (a full buffer handed over first). */
  private encode(): void {
    if (this.text.length === 0) return;
    const text = this.joined();
    // UTF-8 takes at most 3 bytes for one UTF-16 code unit.
    if (this.end + text.length * 3 > BATCH_BYTES) {
      const bytes = this.bytes();
      if (bytes) this.hand(bytes);
      this.buffer = Buffer.allocUnsafe(BATCH_BYTES);
      this.start = this.end = 0;
      if (text.length * 3 > BATCH_BYTES) return this.hand(Buffer.from(text));
    }
    this.end += this.buffer.write(text, this.end);
  }

  /** The held lines as one text, no longer held. */
  private joined(): string {
    const text = this.text.length === 1 ? this.text[0]! : this.text.join('');
    this.text.length = 0;
    this.chars = 0;
    return text;
  }

  /** The encoded bytes not yet handed over, now counted as handed. */
  private bytes(): Buffer | undefined {
    if (this.end === this.start) return undefined;
    const bytes = this.buffer.subarray(this.start, this.end);
    this.start = this.end;
    return bytes;
  }

  private hand(bytes: Buffer): void {
    // sonic-boom's contentMode 'buffer' takes Buffers; its types only name strings.
    this.destination.write(bytes as unknown as string);
  }
}

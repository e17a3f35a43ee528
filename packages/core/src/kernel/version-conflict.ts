/** Raised by a store when a stream is not at the version the writer expected. The engine retries. */
export class VersionConflict extends Error {
  readonly stream: string;
  readonly expected: number;
  readonly actual: number;
  constructor(stream: string, expected: number, actual: number) {
    super(`stream ${stream} is at version ${actual}, expected ${expected}`);
    this.name = 'VersionConflict';
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Types for writes.js (the page loads it as it is; the server imports it through these). */
export interface LoggedEvent {
  position: number;
  stream: string;
  type: string;
  time: number;
  data?: unknown;
}
export interface CallOfWrite {
  endpoint: string;
  cost: number;
  allowance: string | null;
}
export interface Write<E extends LoggedEvent = LoggedEvent> {
  events: E[];
  account: string | null;
  time: number;
  call: CallOfWrite | null;
  /** True when the server recorded this write as it made it; false when read from the envelope. */
  recorded: boolean;
}
export function ownerOf(stream: string): string | null;
export function callOf(first: LoggedEvent): CallOfWrite | null;
export function groupWrites<E extends LoggedEvent>(events: E[], known?: readonly (readonly [number, number])[]): Write<E>[];

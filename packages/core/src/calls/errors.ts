/**
 * Domain errors carry the status they answer, so no adapter has to map them. Rate-limit refusals are
 * special: their status depends on the API version called (403 before 1.2, 429 from 1.2).
 */
export class DomainError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;
  constructor(status: number, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.extra = extra;
  }
}

export class BadRequest extends DomainError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super(400, message, extra);
  }
}
export class Unauthorized extends DomainError {
  constructor(message = 'Authorization failed: unknown username or wrong API key') {
    super(401, message);
  }
}
export class Forbidden extends DomainError {
  constructor(message: string) {
    super(403, message);
  }
}
export class NotFound extends DomainError {
  constructor(message: string) {
    super(404, message);
  }
}
export class MethodNotAllowed extends DomainError {
  readonly allow: string[];
  constructor(method: string, allow: string[]) {
    super(405, `Method ${method} not allowed for this endpoint; allowed: ${allow.join(', ')}`);
    this.allow = allow;
  }
}
export class Conflict extends DomainError {
  constructor(message: string) {
    super(409, message);
  }
}
export class Gone extends DomainError {
  constructor(message: string) {
    super(410, message);
  }
}
export class PayloadTooLarge extends DomainError {
  constructor(message: string) {
    super(413, message);
  }
}
export class UnsupportedMediaType extends DomainError {
  constructor(message: string) {
    super(415, message);
  }
}
/** Answers 403 before API 1.2 and 429 from 1.2; the engine fixes the status when it knows the version. */
export class RateLimited extends DomainError {
  constructor(message = 'rate limit exceeded') {
    // A refusal is an answer, not a fault, and a busy account meets thousands: no stack trace to build.
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(429, message);
    Error.stackTraceLimit = depth;
  }
}
/** An endpoint whose behaviour is not built yet: a 5xx, so nothing is charged. */
export class NotImplemented extends DomainError {
  constructor(what: string) {
    super(501, `${what} is not implemented yet`);
  }
}

/** A state transition not listed for the current state (docs/contract.md#states): 409 naming both. */
export function illegalTransition(what: string, action: string, state: string): Conflict {
  return new Conflict(`Cannot ${action} ${what}: it is ${state}`);
}

/** A value that must be one of a fixed set: 400 naming the parameter and the valid values. */
export function oneOf<T extends string>(name: string, value: string, valid: readonly T[]): T {
  if (!(valid as readonly string[]).includes(value)) throw new BadRequest(`${name} is invalid; valid values are: ${valid.join(',')}`);
  return value as T;
}

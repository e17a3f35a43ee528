// The floors of the project, bottom first. A source file imports only from its own folder or from a lower
// floor; two folders on one floor do not import each other. `floors.spec.ts` holds every file to it and
// refuses any import cycle; docs/architecture.md draws the same list.

/** The packages: each imports only packages on floors below it. */
export const PACKAGE_FLOORS: readonly (readonly string[])[] = [
  ['core'],
  ['clock', 'store-sqlite', 'store-postgres', 'http'],
  ['testing', 'sim', 'stream'],
  ['server'],
];

/**
 * Packages that build on the event-sourcing kernel alone (`@sdp/core/kernel`): a store or a clock knows
 * nothing of accounts, endpoints or handlers, so none of their published sources imports `@sdp/core`.
 */
export const KERNEL_ONLY: readonly string[] = ['clock', 'store-sqlite', 'store-postgres'];

/**
 * Packages whose published sources may import the write side (`@sdp/core/deciders`): the testing kit,
 * which drives deciders by hand. Every other package decides through the engine and reads through the
 * read models and the typed log, so no decider's state is read or written beside the judge.
 */
export const WRITE_SIDE_READERS: readonly string[] = ['testing'];

/**
 * Core's folders. The kernel knows nothing of the platform; what a call carries and how it fails sits on
 * it; then the catalogue and the limiting day, each endpoint's contract (its parameters and answers as
 * schemas), the account and its credits, the handler contract, the
 * domain folders in the order they read each other, the call pipeline, the read models over it and the
 * log, and at the top the platform's handler table (`platform.ts`) and the public faces (`index.ts` ...).
 */
export const CORE_FLOORS: readonly (readonly string[])[] = [
  ['kernel'],
  ['calls'],
  ['catalogue', 'days'],
  ['contract'],
  ['accounting'],
  ['handling'],
  ['filters', 'reference'],
  ['recording-index', 'streams'],
  ['recordings'],
  ['historics'],
  ['analysis'],
  ['tasks', 'previews', 'push', 'sources', 'firehose', 'identities', 'usage', 'idempotency'],
  ['faults'],
  ['pipeline'],
  ['platform-events.ts'],
  ['platform-log.ts'],
  ['read-models'],
  ['platform.ts'],
  ['index.ts', 'deciders.ts', 'internal.ts'],
];

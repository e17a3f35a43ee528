import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the `@sdp/source` export condition), so tests
// never run a stale build. Child processes that tests start with tsx inherit the same condition.
const SOURCE = '@sdp/source';
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE}`].filter(Boolean).join(' ');

const ALL = ['packages/*/src/**/*.spec.ts', 'packaging/*.spec.ts'];

/**
 * The end-to-end suites: a server over a real socket, a browser, or processes of their own started,
 * killed or timed. Together they take about two thirds of the whole run on two cores, so `npm test`
 * leaves them to `npm run test:e2e`; CI (.ci/run) runs both, and `npx vitest run` runs everything.
 */
const E2E = [
  // A server over a real socket (the naming rule for server tests).
  'packages/*/src/**/*.e2e.spec.ts',
  // Headless Chromium.
  'packages/*/src/**/*.chromium.spec.ts',
  'packages/*/src/**/*.browser.spec.ts',
  'packages/sim/src/report-html.spec.ts',
  // Processes of their own: SIGKILLed SQLite servers, a node:cluster, the CLIs run as a user runs them.
  'packages/store-sqlite/src/crash/crash.spec.ts',
  'packages/server/src/workers.spec.ts',
  'packages/server/src/newcomer.spec.ts',
  'packages/server/src/event-log.spec.ts',
  'packages/server/src/docs-commands.spec.ts',
  'packages/sim/src/sim-cli.spec.ts',
  // The scaling bench built into a bundle and run by plain node outside the repository.
  'packaging/bench-bundle.spec.ts',
  // Hundreds of timed 401s over a socket on every store.
  'packages/server/src/username-timing.spec.ts',
];

export default defineConfig({
  resolve: { conditions: [SOURCE, 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: [SOURCE, 'module', 'node', 'development|production'], externalConditions: [SOURCE] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      // One module graph per worker for all its files (no isolation): the files import the same packages,
      // and re-importing them for every file was three quarters of the unit run (import 328 s of 481 s on
      // two busy cores; 26 s of 111 s without). No unit spec stubs globals, mocks modules or sets
      // process.env; one that must should go to its own project with isolation.
      { extends: true, test: { name: 'unit', include: ALL, exclude: E2E, isolate: false } },
      { extends: true, test: { name: 'e2e', include: E2E } },
    ],
  },
});

import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the `@sdp/source` export condition), so tests
// never run a stale build. Child processes that tests start with tsx inherit the same condition.
const SOURCE = '@sdp/source';
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE}`].filter(Boolean).join(' ');

export default defineConfig({
  resolve: { conditions: [SOURCE, 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: [SOURCE, 'module', 'node', 'development|production'], externalConditions: [SOURCE] } },
  test: {
    include: ['packages/*/src/**/*.spec.ts', 'packaging/*.spec.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

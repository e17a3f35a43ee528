import pg from 'pg';

/**
 * Where the PostgreSQL tests run: `SDP_TEST_POSTGRES` names a server. Without one (or when it does not
 * answer) the tests skip with a message, except in CI (`CI` set), where that is a failure.
 */
export async function testDatabase(): Promise<{ url: string } | { skip: string }> {
  const url = process.env.SDP_TEST_POSTGRES;
  const inCi = !!process.env.CI;
  if (!url) {
    if (inCi) throw new Error('CI is set but SDP_TEST_POSTGRES is not: the PostgreSQL store must be tested in CI (see .ci/run)');
    return { skip: 'SDP_TEST_POSTGRES is not set: skipping the PostgreSQL store tests (run `bash .ci/postgres.sh` and set it to postgres://sdp:sdp@127.0.0.1:5432/sdp)' };
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { url };
  } catch (error) {
    const why = `SDP_TEST_POSTGRES=${url} does not answer (${(error as Error).message})`;
    if (inCi) throw new Error(`${why}: in CI the PostgreSQL tests must run`);
    return { skip: `${why}: skipping the PostgreSQL store tests` };
  } finally {
    await client.end().catch(() => {});
  }
}

/** A schema name of its own for each test file and process, so test files run in parallel. */
export const testSchema = (tag: string): string => `sdp_test_${tag}_${process.pid}`;

/**
 * Every worker's attempt counts (`GET /_admin/attempts`), summed. Operator calls name no account, so the
 * primary of `--workers` hands their connections to the workers in turn: one new connection per ask
 * reaches each, told apart by pid.
 */
export async function workerAttempts(url: string, workers: number, adminToken: string): Promise<{ runs: number; conflicts: number }> {
  const seen = new Map<number, { runs: number; conflicts: number }>();
  for (let ask = 0; ask < workers * 10 && seen.size < workers; ask++) {
    const r = await fetch(`${url}/_admin/attempts`, { headers: { Authorization: `Bearer ${adminToken}`, Connection: 'close' } });
    const a = (await r.json()) as { pid: number; runs: number; conflicts: number };
    seen.set(a.pid, a);
  }
  let runs = 0;
  let conflicts = 0;
  for (const a of seen.values()) {
    runs += a.runs;
    conflicts += a.conflicts;
  }
  return { runs, conflicts };
}

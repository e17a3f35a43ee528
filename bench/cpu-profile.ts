import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Runs `fn` under the V8 sampling profiler and returns the share of sampled time (self time) spent in
 * functions whose source URL matches each pattern, plus the result of `fn`.
 */
export async function profileShares<T>(fn: () => Promise<T>, patterns: Record<string, RegExp>): Promise<{ result: T; shares: Record<string, number>; top: string[] }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  let result: T;
  let profile: Profile;
  try {
    result = await fn();
  } finally {
    profile = ((await session.post('Profiler.stop')) as unknown as { profile: Profile }).profile;
    session.disconnect();
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals: Record<string, number> = Object.fromEntries(Object.keys(patterns).map((k) => [k, 0]));
  let all = 0;
  const self = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    all += dt;
    const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`;
    self.set(where, (self.get(where) ?? 0) + dt);
    for (const [k, re] of Object.entries(patterns)) if (re.test(node.callFrame.url)) totals[k]! += dt;
  }
  const shares = Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, all > 0 ? v / all : 0]));
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([where, t]) => `${((t / all) * 100).toFixed(1)}% ${where}`);
  return { result: result!, shares, top };
}

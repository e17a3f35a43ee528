import { readFileSync } from 'node:fs';
import { parseScenario, runScenario } from '@sdp/sim';
import { profileShares } from '/work/wt15/bench/cpu-profile.ts';
const s = parseScenario(readFileSync('/work/wt15/examples/agency-week.yaml', 'utf8'), 'aw');
const { result, shares, top } = await profileShares(() => runScenario(s, { packageOverride: { name: 'standard', fields: s.packages.standard! } }), {
  analysis: /core\/src\/(analysis|recording-index)\//, firehose: /core\/src\/firehose\//, sim: /sim\/src/ , engine: /core\/src\/engine/});
console.log(result.wallMs, shares, top);

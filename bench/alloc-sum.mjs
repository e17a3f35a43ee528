// Sums `--trace-gc-nvp` lines between bench/alloc-probe.ts's markers: bytes allocated and promoted per call.
import { createInterface } from 'node:readline';
let on = false;
let allocated = 0;
let promoted = 0;
let scavenges = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (line.startsWith('=== measured')) on = true;
  else if (line.startsWith('=== end')) {
    const [, , calls, cpu] = line.split(' ');
    console.log(`${(allocated / Number(calls)).toFixed(0)} bytes allocated a call, ${(promoted / Number(calls)).toFixed(1)} promoted, ${scavenges} scavenges, ${cpu} µs CPU a call`);
    on = false;
  } else if (on && line.includes('gc=')) {
    for (const field of line.split(/\s+/)) {
      const [k, v] = field.split('=');
      if (k === 'allocated') allocated += Number(v);
      else if (k === 'promoted') promoted += Number(v);
      else if (k === 'gc' && v === 's') scavenges++;
    }
  }
}

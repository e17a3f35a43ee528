/**
 * `npm run bench [name ...]`: runs every `bench/*.bench.ts` (or those named) one after another and
 * prints each report; `--json FILE` also writes them as JSON.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatReport, type BenchReport } from './lib.ts';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const names = args.filter((a, i) => !a.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => names.length === 0 || names.some((n) => f.startsWith(n)))
  .sort();

const reports: BenchReport[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<BenchReport | BenchReport[]> };
  const out = await mod.default();
  for (const r of Array.isArray(out) ? out : [out]) {
    reports.push(r);
    console.log(formatReport(r) + '\n');
  }
}
if (jsonFile) writeFileSync(jsonFile, JSON.stringify(reports, null, 2));

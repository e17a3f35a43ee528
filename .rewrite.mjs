import ts from 'typescript';
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
const KERNEL = new Set('evolveWith fold Decider DomainEvent ANY_VERSION AppendResult ExpectedVersion NewEvent StoredEvent StreamAppend StoreUnavailable EventStore Snapshot VersionConflict SNAPSHOT_EVERY MemoryEventStore MemoryStoreOptions fixedClock seededIds Clock Ids Projection ProjectionKey Projections ProjectionProgress EventFromNewerSchema Upcasters Upcaster EvolvingStore evolvingStore replay RebuiltAggregate ReplayOptions ReplayReport ReplayTarget SnapshotMismatch'.split(' '));
const GONE = new Set('AccountLanes AggregateLoader Loaded UnitOfWork Savepoint foldMany ApiKeyDigests archiveInteractions completeDueTasks TaskContext sourceHandlers analyseInteractions analyseSet runAnalysis analysisWindow validateAnalysisRequest authorOf firehoseMinute historicsQuery pendingTransitions'.split(' '));
const files = execSync(`grep -rl "@sdp/core'" --include=*.ts --include=*.tsx --include=*.mts packages bench consumer examples | grep -v node_modules | grep -v /dist/ | grep -v '^packages/core/'`, { encoding: 'utf8' }).trim().split('\n');
for (const f of files) {
  let text = readFileSync(f, 'utf8');
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  for (const st of sf.statements) {
    if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || st.moduleSpecifier.text !== '@sdp/core') continue;
    const isImport = ts.isImportDeclaration(st);
    const b = isImport ? st.importClause?.namedBindings : st.exportClause;
    const typeOnly = isImport ? st.importClause.isTypeOnly : st.isTypeOnly;
    if (!b || !(ts.isNamedImports(b) || ts.isNamedExports(b))) { console.log('SKIP', f); continue; }
    const main = [], kern = [];
    for (const e of b.elements) {
      const name = (e.propertyName ?? e.name).text;
      if (GONE.has(name)) console.log('GONE', f, name);
      (KERNEL.has(name) ? kern : main).push(e.getText(sf));
    }
    if (kern.length === 0) continue;
    const multi = b.getText(sf).includes('\n');
    const kw = isImport ? 'import' : 'export';
    const t = typeOnly ? ' type' : '';
    const mk = (names, spec) => multi ? `${kw}${t} {\n${names.map((n) => `  ${n},`).join('\n')}\n} from '${spec}';` : `${kw}${t} { ${names.join(', ')} } from '${spec}';`;
    const out = [main.length ? mk(main, '@sdp/core') : null, mk(kern, '@sdp/core/kernel')].filter(Boolean).join('\n');
    edits.push([st.getStart(sf), st.getEnd(), out]);
  }
  for (const [s, e, out] of edits.reverse()) text = text.slice(0, s) + out + text.slice(e);
  if (edits.length) { writeFileSync(f, text); console.log('rewrote', f); }
}

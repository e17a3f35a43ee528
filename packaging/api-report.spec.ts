/**
 * The API report: every name each package exports, with its type, checked in beside this file. A change
 * of the public surface changes a report, so it shows in review; `npx vitest run packaging -u` writes
 * the reports anew after a deliberate change.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** Each package's entry points: `exports` subpaths with a source condition. */
function entries(): { name: string; subpath: string; file: string; report: string }[] {
  return readdirSync(join(root, 'packages')).flatMap((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
      const source = typeof target === 'object' && target !== null ? (target as Record<string, string>)['@sdp/source'] : undefined;
      if (!source) return [];
      const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replaceAll('/', '-')}`;
      return [{ name: pkg.name, subpath, file: join(root, 'packages', dir, source), report: `./api/${dir}${suffix}.api.md` }];
    });
  });
}

function describeSymbol(checker: ts.TypeChecker, exported: ts.Symbol): string {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const name = exported.getName();
  const decl = symbol.declarations?.[0];
  const members = (type: ts.Type) =>
    checker
      .getPropertiesOfType(type)
      .filter((p) => !(ts.getCombinedModifierFlags(p.valueDeclaration ?? p.declarations![0]!) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
      .filter((p) => !p.getName().startsWith('#'))
      .map((p) => `  ${p.getName()}${p.flags & ts.SymbolFlags.Optional ? '?' : ''}: ${checker.typeToString(checker.getTypeOfSymbol(p), decl, FLAGS)};`)
      .join('\n');
  const out: string[] = [];
  if (symbol.flags & ts.SymbolFlags.Class) {
    const ctor = checker.getTypeOfSymbol(symbol);
    const sigs = ctor.getConstructSignatures().map((s) => `  constructor(${s.getParameters().map((p) => `${p.getName()}: ${checker.typeToString(checker.getTypeOfSymbol(p), decl, FLAGS)}`).join(', ')});`);
    out.push(`class ${name} {\n${[...sigs, members(checker.getDeclaredTypeOfSymbol(symbol))].filter(Boolean).join('\n')}\n}`);
  } else if (symbol.flags & ts.SymbolFlags.Interface) {
    out.push(`interface ${name} {\n${members(checker.getDeclaredTypeOfSymbol(symbol))}\n}`);
  } else if (symbol.flags & ts.SymbolFlags.TypeAlias) {
    out.push(`type ${name} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), decl, FLAGS | ts.TypeFormatFlags.InTypeAlias)};`);
  }
  if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
    out.push(`${symbol.flags & ts.SymbolFlags.Function ? 'function' : 'const'} ${name}: ${checker.typeToString(checker.getTypeOfSymbol(symbol), decl, FLAGS)};`);
  }
  return out.join('\n') || `${name}: (kind ${symbol.flags})`;
}

describe('the API report of every package entry point', () => {
  const all = entries();
  const config = ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')), ts.sys, root);
  const program = ts.createProgram(all.map((e) => e.file), config.options);
  const checker = program.getTypeChecker();

  for (const entry of all) {
    it(`${entry.name}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`, async () => {
      const source = program.getSourceFile(entry.file)!;
      const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).sort((a, b) => a.getName().localeCompare(b.getName()));
      const text = `# ${entry.name}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}: public API (${exports.length} names)\n\n\`\`\`ts\n${exports.map((e) => describeSymbol(checker, e)).join('\n\n')}\n\`\`\`\n`.replaceAll(`${root}/`, '');
      await expect(text).toMatchFileSnapshot(entry.report);
    });
  }

  it('no entry point re-exports a whole module (export *): every public name is chosen', () => {
    const offenders = all.filter((e) => /^\s*export \*/m.test(readFileSync(e.file, 'utf8'))).map((e) => e.file);
    expect(offenders).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CORE_FLOORS, KERNEL_ONLY, PACKAGE_FLOORS, WRITE_SIDE_READERS } from './floors.ts';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const packagesDir = join(repo, 'packages');

/** Source files that ship: tests and the test support beside them are allowed to reach higher. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.(spec|test|d)\.ts$/.test(name) ? [path] : [];
  });
}

interface Edge {
  from: string;
  to: string;
}

/** Every import, re-export and dynamic import of a file, type-only ones included. */
function importsOf(path: string): string[] {
  const info = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

const packageNames = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name, 'src')).isDirectory());
const files = packageNames.flatMap((name) => sources(join(packagesDir, name, 'src')));

/** The source file an `@sdp/...` specifier names: its package's `exports` entry, `@sdp/source` condition. */
function sourceOf(spec: string): string | undefined {
  const own = /^@sdp\/([^/]+)(\/.+)?$/.exec(spec);
  if (!own) return undefined;
  const dir = join(packagesDir, own[1]!);
  const exports = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string> | string> }).exports;
  const target = exports[`.${own[2] ?? ''}`];
  const source = typeof target === 'object' ? target['@sdp/source'] : undefined;
  if (!source) throw new Error(`${spec} is no entry point of @sdp/${own[1]} with a source condition`);
  return join(dir, source);
}

const edges: Edge[] = files.flatMap((from) =>
  importsOf(from).flatMap((spec): Edge[] => {
    if (spec.startsWith('.')) return [{ from, to: resolve(dirname(from), spec) }];
    const to = sourceOf(spec);
    return to ? [{ from, to }] : [];
  }),
);

const packageOf = (path: string): string => relative(packagesDir, path).split('/')[0]!;
/** The folder of core a file lives in (`kernel`, `filters`, ...) or the file's own name at core's root. */
const coreUnitOf = (path: string): string => relative(join(packagesDir, 'core', 'src'), path).split('/')[0]!;

function floorOf(floors: readonly (readonly string[])[], unit: string): number {
  const at = floors.findIndex((floor) => floor.includes(unit));
  if (at < 0) throw new Error(`${unit} is on no declared floor: add it to packaging/floors.ts`);
  return at;
}

const show = (path: string) => relative(repo, path);

describe('the floors', () => {
  it('finds the sources and their imports', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('declares every package and every folder of core', () => {
    const declared = PACKAGE_FLOORS.flat();
    expect(packageNames.filter((p) => !declared.includes(p))).toEqual([]);
    const units = new Set(files.filter((f) => packageOf(f) === 'core').map(coreUnitOf));
    expect([...units].filter((u) => !CORE_FLOORS.flat().includes(u))).toEqual([]);
  });

  it('packages import only packages below them', () => {
    const upward = edges
      .filter((e) => packageOf(e.from) !== packageOf(e.to))
      .filter((e) => floorOf(PACKAGE_FLOORS, packageOf(e.to)) >= floorOf(PACKAGE_FLOORS, packageOf(e.from)))
      .map((e) => `${show(e.from)} -> @sdp/${packageOf(e.to)}`);
    expect(upward).toEqual([]);
  });

  it('the store adapters and the clock import only the kernel of core', () => {
    const kernel = join(packagesDir, 'core', 'src', 'kernel');
    const beyond = edges
      .filter((e) => KERNEL_ONLY.includes(packageOf(e.from)) && packageOf(e.to) === 'core')
      .filter((e) => !e.to.startsWith(kernel + '/'))
      .map((e) => `${show(e.from)} -> ${show(e.to)}`);
    expect(beyond).toEqual([]);
  });

  it('only the testing kit imports the write side (@sdp/core/deciders) outside core', () => {
    const writers = files
      .filter((f) => packageOf(f) !== 'core' && !WRITE_SIDE_READERS.includes(packageOf(f)))
      .filter((f) => importsOf(f).includes('@sdp/core/deciders'))
      .map(show);
    expect(writers).toEqual([]);
    expect(files.some((f) => WRITE_SIDE_READERS.includes(packageOf(f)) && importsOf(f).includes('@sdp/core/deciders'))).toBe(true);
  });

  it("core's folders import only their own folder and floors below", () => {
    const upward = edges
      .filter((e) => packageOf(e.from) === 'core' && packageOf(e.to) === 'core')
      .filter((e) => coreUnitOf(e.from) !== coreUnitOf(e.to))
      .filter((e) => floorOf(CORE_FLOORS, coreUnitOf(e.to)) >= floorOf(CORE_FLOORS, coreUnitOf(e.from)))
      .map((e) => `${show(e.from)} -> ${show(e.to)}`);
    expect(upward).toEqual([]);
  });

  it("no folder of core reads another's handlers (cross-aggregate reads go through query modules)", () => {
    const reaching = edges
      .filter((e) => packageOf(e.from) === 'core' && packageOf(e.to) === 'core')
      .filter((e) => coreUnitOf(e.from) !== coreUnitOf(e.to) && e.to.endsWith('/handlers.ts'))
      .filter((e) => !['platform.ts', 'index.ts'].includes(coreUnitOf(e.from)))
      .map((e) => `${show(e.from)} -> ${show(e.to)}`);
    expect(reaching).toEqual([]);
  });

  it('the kernel imports nothing of the project', () => {
    const outside = edges
      .filter((e) => packageOf(e.from) === 'core' && coreUnitOf(e.from) === 'kernel')
      .filter((e) => packageOf(e.to) !== 'core' || coreUnitOf(e.to) !== 'kernel')
      .map((e) => `${show(e.from)} -> ${show(e.to)}`);
    expect(outside).toEqual([]);
  });

  it('no file imports itself back through others', () => {
    const next = new Map<string, string[]>();
    for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let counter = 0;
    const visit = (v: string): void => {
      index.set(v, counter);
      low.set(v, counter++);
      stack.push(v);
      onStack.add(v);
      for (const w of next.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(show(w));
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const f of files) if (!index.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});

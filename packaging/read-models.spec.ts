/**
 * What the console and the simulator show is read through the core's read models, never from a decider's
 * state: the write side may change its states without a reader outside the core noticing. And the
 * embedder's entry, `@sdp/core`, exports no decider (they are `@sdp/core/deciders`, for tests of them).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Source files that ship (tests may set up state through the write side). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(name) && !/\.(spec|test|d)\.ts$/.test(name) ? [path] : [];
  });
}

/** The files that show what an account or a resource looks like. */
const READERS = [join(repo, 'packages/server/src/console'), join(repo, 'packages/sim/src')].flatMap(sources);

describe('the console and the simulator read state through the read models', () => {
  it('import nothing of @sdp/core/deciders', () => {
    const offenders = READERS.filter((f) => ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles.some((i) => i.fileName === '@sdp/core/deciders'));
    expect(offenders.map((f) => relative(repo, f))).toEqual([]);
  });

  it("never reach the engine's aggregate cache (engine.loader) or decide through engine.command to read", () => {
    const offenders = READERS.filter((f) => /\.loader\b|\.command\(\s*\(?uow\)?\s*=>\s*uow\.load\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(repo, f))).toEqual([]);
  });
});

describe("the embedder's entry", () => {
  it('@sdp/core exports no decider (its API report lists none)', () => {
    const report = readFileSync(join(repo, 'packaging/api/core.api.md'), 'utf8');
    expect(report.match(/^const \w+: Decider</gm) ?? []).toEqual([]);
    expect(readFileSync(join(repo, 'packaging/api/core-deciders.api.md'), 'utf8')).toMatch(/^const accountDecider: Decider</m);
  });
});

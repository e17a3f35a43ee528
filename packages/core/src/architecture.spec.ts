import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Strips comments so that prose about `Date.now()` does not count as a use of it. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

describe('the pure core', () => {
  const files = sources(root).map((path) => ({ path: relative(root, path), text: code(readFileSync(path, 'utf8')) }));

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  const rules: [string, RegExp][] = [
    ['imports nothing from node:', /from\s+['"]node:|require\(\s*['"]node:|import\(\s*['"]node:/],
    ['imports no Node built-in by its bare name', /from\s+['"](fs|path|crypto|http|https|net|os|child_process|worker_threads|timers)['"]/],
    ['never reads the clock with Date.now()', /Date\.now\s*\(/],
    ['never builds an argument-less new Date()', /new\s+Date\s*\(\s*\)/],
    ['never draws randomness with Math.random', /Math\.random/],
    ['never uses timers', /\b(setTimeout|setInterval|setImmediate)\s*\(/],
    ['never reads the process environment', /\bprocess\.(env|argv|hrtime)/],
  ];
  for (const [rule, pattern] of rules) {
    it(rule, () => {
      const offenders = files.filter((f) => pattern.test(f.text)).map((f) => f.path);
      expect(offenders).toEqual([]);
    });
  }

  it('imports no adapter package', () => {
    const offenders = files.filter((f) => /from\s+['"]@sdp\/(?!core)/.test(f.text)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});

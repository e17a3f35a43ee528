import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every source file the fetch handler loads: relative imports and workspace packages, followed to the end. */
function reachedFrom(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec));
      else if (spec.startsWith('@sdp/')) {
        const index = join(packages, spec.slice('@sdp/'.length), 'src/index.ts');
        if (existsSync(index)) todo.push(index);
      }
    }
  }
  return [...seen];
}

const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('the fetch handler is runtime-neutral (Bun, Deno, workers)', () => {
  const files = reachedFrom(join(packages, 'http/src/fetch-handler.ts'));

  it('reaches the core and the wire through the handler', () => {
    expect(files.some((f) => f.endsWith('core/src/pipeline/engine.ts'))).toBe(true);
    expect(files.some((f) => f.endsWith('http/src/credentials.ts'))).toBe(true);
  });

  it('imports nothing from node:* and uses no Buffer on its path', () => {
    const offending = files.flatMap((f) => {
      const text = code(readFileSync(f, 'utf8'));
      const out: string[] = [];
      if (/from\s+'node:|import\('node:/.test(text)) out.push(`${f}: imports node:*`);
      if (/\bBuffer\b/.test(text)) out.push(`${f}: uses Buffer`);
      if (/\bprocess\./.test(text)) out.push(`${f}: uses process`);
      return out;
    });
    expect(offending).toEqual([]);
  });
});

import { expect, it } from 'vitest';
import { readFileSync } from 'node:fs';

it("the README's example is the example test, word for word", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const example = readFileSync(new URL('./readme-example.spec.ts', import.meta.url), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBe(example);
});

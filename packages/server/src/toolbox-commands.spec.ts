import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocumentCommand } from './toolbox-commands.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-toolbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the toolbox commands', () => {
  it('read their settings from the environment they are given, as every sdp command does', async () => {
    const file = join(dir, 'openapi.json');
    expect(process.env.SDP_PRODUCT).toBeUndefined();
    expect(await openApiDocumentCommand.run([file], { SDP_PRODUCT: 'pylon', SDP_RATE_LIMIT_HEADERS: 'ietf' })).toBe(0);
    const text = readFileSync(file, 'utf8');
    const paths = Object.keys((JSON.parse(text) as { paths: Record<string, unknown> }).paths);
    expect(paths).toContain('/pylon/validate');
    expect(paths).not.toContain('/insight/validate');
    // The IETF fields on every answer (the default document names them once, in a description).
    expect(text.match(/"RateLimit-Policy"/g)?.length ?? 0).toBeGreaterThan(10);
  });
});

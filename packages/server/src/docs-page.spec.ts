import { readFileSync } from 'node:fs';
import type { WireRequest } from '@sdp/http';
import { describe, expect, it } from 'vitest';
import { createDocsPage } from './docs-page.ts';

const get = (url: string): WireRequest => ({ method: 'GET', url, header: () => undefined, readBody: async () => null });
/** A body as text, whether it was answered as a string or as bytes made once (`FixedBody`). */
const text = (body: unknown): string => (body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body));
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };

describe('/docs', () => {
  it('serves the page and the renderer where redoc is installed (a workspace dev dependency here)', async () => {
    const docs = createDocsPage();
    expect(text((await docs(get('/docs'))).body)).toContain('/docs/redoc.standalone.js');
    expect((await docs(get('/docs/redoc.standalone.js'))).status).toBe(200);
  });

  it('without redoc (an optional peer of @sdp/server) says where the document is and what to install, and serves no renderer', async () => {
    const docs = createDocsPage({ renderer: () => undefined });
    const page = await docs(get('/docs'));
    expect(page.status).toBe(200);
    expect(text(page.body)).toContain('href="/openapi.json"');
    expect(manifest.peerDependenciesMeta.redoc?.optional).toBe(true);
    expect(text(page.body)).toContain(`redoc@${manifest.peerDependencies.redoc}`);
    expect((await docs(get('/docs/redoc.standalone.js'))).status).toBe(404);
  });
});

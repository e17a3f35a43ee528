import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorResponse, segmentsOf, splitUrl, type WireHandler } from '@sdp/http';

/** The page's files, beside this module (the build copies them into dist/console/page). */
const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page');
const require = createRequire(import.meta.url);

/** The ES module build beside the CommonJS entry a package's `require` condition names. */
const moduleBuild = (entry: string): string => entry.replace(/\.js$/, '.mjs');

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The bare names the page imports, mapped to the copies this server serves (nothing leaves the machine). */
const VENDOR: Record<string, { file: string; url: string }> = {
  preact: { file: moduleBuild(require.resolve('preact')), url: '/_console/vendor/preact.mjs' },
  'preact/hooks': { file: moduleBuild(require.resolve('preact/hooks')), url: '/_console/vendor/hooks.mjs' },
  htm: { file: moduleBuild(require.resolve('htm')), url: '/_console/vendor/htm.mjs' },
};

interface Asset {
  type: string;
  body: string;
}

function loadAssets(): { assets: Map<string, Asset>; csp: string } {
  const importMap = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([name, v]) => [name, v.url])) });
  const html = readFileSync(join(PAGE_DIR, 'index.html'), 'utf8').replace('<!-- import map -->', `<script type="importmap">${importMap}</script>`);
  const mapHash = createHash('sha256').update(importMap).digest('base64');
  const assets = new Map<string, Asset>();
  assets.set('', { type: TYPES.html!, body: html });
  for (const name of ['app.js', 'views.js', 'requests-view.js', 'api.js', 'writes.js', 'route.js', 'console.css']) {
    assets.set(name, { type: TYPES[name.split('.').pop()!]!, body: readFileSync(join(PAGE_DIR, name), 'utf8') });
  }
  for (const v of Object.values(VENDOR)) assets.set(v.url.slice('/_console/'.length), { type: TYPES.mjs!, body: readFileSync(v.file, 'utf8') });
  // Only this server is reachable from the page: scripts, styles and fetches from its own origin.
  const csp = `default-src 'none'; script-src 'self' 'sha256-${mapHash}'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { assets, csp };
}

/**
 * The console's static files at `/_console`. The files hold no data (every figure comes from the
 * operator API with the token the page asks for), but like the operator API they exist only when the
 * server has an admin token: without one every console path answers 404.
 */
export function createConsoleFiles(options: { token: string | undefined }): WireHandler {
  if (options.token === undefined) return async () => errorResponse(404, 'Not found');
  const { assets, csp } = loadAssets();
  return async (req) => {
    const segs = segmentsOf(splitUrl(req.url).path).slice(1);
    const asset = assets.get(segs.join('/'));
    if (!asset) return errorResponse(404, 'No console file at this path');
    if (req.method !== 'GET' && req.method !== 'HEAD') return errorResponse(405, `Method ${req.method} not allowed here`, { Allow: 'GET, HEAD' });
    return {
      status: 200,
      headers: { 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
      body: asset.body,
    };
  };
}

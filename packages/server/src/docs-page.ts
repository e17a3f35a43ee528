import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CURRENT_VERSION } from '@sdp/core';
import { FixedBody, errorResponse, segmentsOf, splitUrl, type WireHandler } from '@sdp/http';

/** The one picture the bundle fetches from its maker's host (the sidebar's credit line): drawn inline instead. */
const CREDIT_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg/g;
const INLINE_LOGO = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="6" fill="#888"/></svg>');

const page = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sdp API ${CURRENT_VERSION} reference</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<div id="reference"></div>
<script src="/docs/redoc.standalone.js"></script>
<script>
  Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201,204', nativeScrollbars: true }, document.getElementById('reference'));
</script>
</body>
</html>
`;

/** What /docs says where the renderer is not installed: the document is still there, and how to get the page. */
const withoutRenderer = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sdp API ${CURRENT_VERSION} reference</title>
</head>
<body>
<p>The reference page is drawn by Redoc, an optional companion of <code>@sdp/server</code> that is not
installed here. The document itself is at <a href="/openapi.json">/openapi.json</a>; for the page, install
<code>redoc@2.5.1</code> beside <code>@sdp/server</code> and restart the server.</p>
</body>
</html>
`;

/**
 * `GET /docs`: the reference page of the current version, rendered in the browser by Redoc from
 * `/openapi.json`; `GET /docs/redoc.standalone.js`: the renderer itself. Both made on first ask and
 * answered from their bytes (ETag, gzip), as the documents are: the renderer is nearly a megabyte that
 * anyone may ask for without credentials (docs/openapi.md#cost). Redoc is an optional peer (a hundred
 * packages that only this page needs), so without it the page says how to get it.
 */
export function createDocsPage(options: { renderer?: () => string | undefined } = {}): WireHandler {
  const renderer = options.renderer ?? rendererPath;
  let html: FixedBody | undefined;
  let script: FixedBody | undefined;
  let found: { path: string | undefined } | undefined;
  return async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return errorResponse(405, `Method ${req.method} not allowed here`, { Allow: 'GET, HEAD' });
    const segs = segmentsOf(splitUrl(req.url).path);
    const path = (found ??= { path: renderer() }).path;
    if (segs.length === 1) {
      html ??= new FixedBody(path ? page() : withoutRenderer(), { contentType: 'text/html; charset=utf-8', headers: { 'Cache-Control': 'no-cache' } });
      return html.answer(req);
    }
    if (segs.length === 2 && segs[1] === 'redoc.standalone.js' && !path) return errorResponse(404, 'The renderer (redoc) is not installed beside @sdp/server');
    if (segs.length === 2 && segs[1] === 'redoc.standalone.js') {
      script ??= new FixedBody(readFileSync(path!, 'utf8').replace(CREDIT_LOGO, INLINE_LOGO), { contentType: 'text/javascript; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=86400' } });
      return script.answer(req);
    }
    return errorResponse(404, 'No such page under /docs');
  };
}

/** Redoc's self-contained bundle, served from this package so the page asks nothing of any other host. */
function rendererPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

import { writeFileSync } from 'node:fs';
import { CURRENT_VERSION, VERSIONS, type VersionId } from '@sdp/core';
import { openApiDocument } from '@sdp/http';

export const OPENAPI_USAGE = `sdp openapi [--version 1.0..${CURRENT_VERSION}] [--product WORD] [--rate-limit-headers x|ietf|both] [FILE]   (the OpenAPI 3.1 document, to FILE or standard output)`;

/** `sdp openapi`: the document `GET /v<version>/openapi.json` serves, written to a file. */
export function openApiCommand(argv: string[], env: Record<string, string | undefined> = process.env): number {
  let version: string = CURRENT_VERSION;
  let product = env.SDP_PRODUCT ?? 'insight';
  let style = env.SDP_RATE_LIMIT_HEADERS ?? 'x';
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--version') version = value().replace(/^v/, '');
    else if (flag === '--product') product = value();
    else if (flag === '--rate-limit-headers') style = value();
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}\n${OPENAPI_USAGE}`);
    else if (file === undefined) file = a;
    else throw new Error(`one file at most\n${OPENAPI_USAGE}`);
  }
  if (!VERSIONS.some((v) => v.id === version)) throw new Error(`--version must be one of ${VERSIONS.map((v) => v.id).join(', ')}, not "${version}"`);
  if (!/^[a-z0-9_-]{1,40}$/i.test(product)) throw new Error(`--product must be one path word, not "${product}"`);
  if (style !== 'x' && style !== 'ietf' && style !== 'both') throw new Error(`--rate-limit-headers must be x, ietf or both, not "${style}"`);
  const text = JSON.stringify(openApiDocument(version as VersionId, { product, rateLimitHeaders: style }), null, 2) + '\n';
  if (file) {
    writeFileSync(file, text);
    process.stderr.write(`wrote the OpenAPI document of API ${version} to ${file}\n`);
  } else process.stdout.write(text);
  return 0;
}

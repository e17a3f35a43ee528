import { readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from './settings.ts';
import { startServer } from './server.ts';

/**
 * The worked examples of docs/ are tests: every ```http-exchange block is replayed against a fresh server
 * (memory store, manual clock at 2026-03-02T08:05:37Z, admin token `admin-secret`, account `alice` with
 * API key `alice-key-0123456789`), in order, and each answer must match what the page shows.
 *
 * A block holds exchanges: `> METHOD PATH`, then `> Header: value` lines and `> body` lines; then
 * `< STATUS`, `< Header: value` (must be present with that value; `< Header: (absent)` must not be),
 * and `< body` lines: a JSON object is matched as a subset, NDJSON line by line, anything else exactly.
 */
const DOCS = join(import.meta.dirname, '../../../docs');
const PAGES = readdirSync(DOCS).filter((f) => f.endsWith('.md') && readFileSync(join(DOCS, f), 'utf8').includes('```http-exchange'));

interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  expectHeaders: Record<string, string>;
  expectBody: string[];
  line: number;
}

function exchangesOf(markdown: string, settingsOut: { flags: Record<string, string> }): Exchange[] {
  const out: Exchange[] = [];
  const lines = markdown.split('\n');
  let inBlock = false;
  let current: Exchange | undefined;
  lines.forEach((raw, i) => {
    if (raw.startsWith('```http-exchange')) {
      inBlock = true;
      for (const m of raw.matchAll(/--([a-z-]+)=(\S+)/g)) settingsOut.flags[m[1]!] = m[2]!;
      return;
    }
    if (inBlock && raw.startsWith('```')) {
      inBlock = false;
      return;
    }
    if (!inBlock) return;
    const line = raw.trimEnd();
    if (line.startsWith('> ')) {
      const text = line.slice(2);
      const request = /^(GET|POST|PUT|DELETE|HEAD) (\/\S*)$/.exec(text);
      if (request) {
        current = { method: request[1]!, path: request[2]!, headers: {}, body: '', status: 0, expectHeaders: {}, expectBody: [], line: i + 1 };
        out.push(current);
      } else if (current && /^[A-Za-z-]+: /.test(text) && current.body === '') {
        const [name, ...rest] = text.split(': ');
        current.headers[name!.toLowerCase()] = rest.join(': ');
      } else if (current) current.body += (current.body ? '\n' : '') + text;
    } else if (line.startsWith('< ') && current) {
      const text = line.slice(2);
      if (current.status === 0 && /^\d{3}$/.test(text)) current.status = Number(text);
      else if (/^[A-Za-z-]+: /.test(text) && current.expectBody.length === 0) {
        const [name, ...rest] = text.split(': ');
        current.expectHeaders[name!.toLowerCase()] = rest.join(': ');
      } else current.expectBody.push(text);
    }
  });
  return out;
}

describe('the worked examples of docs/ are tests', () => {
  for (const page of PAGES) {
    it(`docs/${page}`, async () => {
      const settings = { flags: {} as Record<string, string> };
      const exchanges = exchangesOf(readFileSync(join(DOCS, page), 'utf8'), settings);
      expect(exchanges.length).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'sdp-docs-'));
      const accounts = join(dir, 'accounts.json');
      writeFileSync(accounts, JSON.stringify([{ username: 'alice', api_key: 'alice-key-0123456789', package: { credits_per_hour: 1000 } }]));
      const sdp = await startServer({
        ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: 'admin-secret', accessLog: 'off', accountsFile: accounts,
        ...(settings.flags['rate-limit-headers'] ? { rateLimitHeaders: settings.flags['rate-limit-headers'] as 'ietf' } : {}),
      });
      try {
        for (const x of exchanges) {
          const where = `docs/${page}:${x.line} ${x.method} ${x.path}`;
          const r = await fetch(`${sdp.url}${x.path}`, { method: x.method, headers: x.headers, ...(x.body ? { body: x.body } : {}) });
          const text = await r.text();
          expect(r.status, `${where}: ${text}`).toBe(x.status);
          for (const [name, value] of Object.entries(x.expectHeaders)) {
            if (value === '(absent)') expect(r.headers.get(name), `${where}: ${name}`).toBeNull();
            else expect(r.headers.get(name), `${where}: ${name}`).toBe(value);
          }
          if (x.expectBody.length === 0) continue;
          const expected = x.expectBody.join('\n');
          if (x.expectBody.length === 1 && expected.startsWith('{')) expect(JSON.parse(text), where).toMatchObject(JSON.parse(expected));
          else if (x.expectBody.every((l) => l.startsWith('{'))) {
            const got = text.trim().split('\n');
            expect(got.length, where).toBe(x.expectBody.length);
            x.expectBody.forEach((l, i) => expect(JSON.parse(got[i]!), where).toMatchObject(JSON.parse(l)));
          } else expect(text, where).toBe(expected);
        }
      } finally {
        await sdp.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

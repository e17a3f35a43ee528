import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { streamTarget } from './stream-target.ts';

const request = (url: string, headers: Record<string, string> = {}): IncomingMessage => ({ method: 'GET', url, headers }) as unknown as IncomingMessage;

describe('streamTarget: any request target node:http hands over', () => {
  it('a target of empty segments is a path, never a host, and never throws', () => {
    // `new URL('//', base)` throws; thrown in node:http's request listener, it ended the process.
    for (const url of ['//', '//x/multi', '///', '//:0', '//[', 'http://[', '*']) {
      expect(() => streamTarget(request(url), true), url).not.toThrow();
      expect(streamTarget(request(url), false), url).toBeUndefined();
    }
  });

  it('reads an absolute-form target by its path', () => {
    expect(streamTarget(request('http://x/multi'), false)?.kind).toBe('multi');
    expect(streamTarget(request(`/${'a'.repeat(32)}?username=u&api_key=k`), false)).toMatchObject({ kind: 'single', credentials: { username: 'u', apiKey: 'k' } });
  });
});

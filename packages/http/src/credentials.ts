/**
 * The three ways real clients authenticate (docs/clients.md#authentication-forms): `Authorization: user:key` (raw, not Basic),
 * `Auth: user:key`, and HTTP Basic. A malformed header reads as no credentials, which the engine answers 401.
 */
export interface Credentials {
  username: string;
  apiKey: string;
}

const MAX_USERNAME = 64;
const MAX_API_KEY = 256;
/** Whitespace (a scheme word and its token) and control characters: neither is part of a raw pair. */
// eslint-disable-next-line no-control-regex
const NOT_IN_PAIR = /[\s\u0000-\u001f\u007f-\u009f]/;
const BASIC = /^basic\s+(\S+)$/i;

export function readCredentials(authorization: string | undefined, auth: string | undefined): Credentials | undefined {
  if (authorization !== undefined) {
    const value = authorization.trim();
    // The raw pair first, as most clients send it: a value that reads as one holds no space, so is no Basic.
    const pair = splitPair(value);
    if (pair) return pair;
    const basic = BASIC.exec(value);
    if (basic) return splitPair(decodeBasic(basic[1]!));
  }
  if (auth !== undefined) return splitPair(auth.trim());
  return undefined;
}

function decodeBasic(token: string): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(token)) return '';
  // atob and TextDecoder rather than Buffer: the fetch face runs where Node's globals do not exist.
  const plain = token.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (plain.length % 4 === 1) return '';
  try {
    const binary = atob(plain.padEnd(Math.ceil(plain.length / 4) * 4, '='));
    return UTF8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return '';
  }
}

const UTF8 = new TextDecoder();

function splitPair(value: string): Credentials | undefined {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) return undefined;
  // Over-long parts, control characters and a scheme word followed by a space (`Bearer x:y`) are
  // refused here, at the edge, before any store sees them.
  if (colon > MAX_USERNAME || value.length - colon - 1 > MAX_API_KEY || NOT_IN_PAIR.test(value)) return undefined;
  return { username: value.slice(0, colon), apiKey: value.slice(colon + 1) };
}

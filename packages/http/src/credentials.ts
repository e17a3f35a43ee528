/**
 * The three ways real clients authenticate (wire-facts §1.2): `Authorization: user:key` (raw, not Basic),
 * `Auth: user:key`, and HTTP Basic. A malformed header reads as no credentials, which the engine answers 401.
 */
export interface Credentials {
  username: string;
  apiKey: string;
}

const MAX_USERNAME = 64;
const MAX_API_KEY = 256;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function readCredentials(authorization: string | undefined, auth: string | undefined): Credentials | undefined {
  if (authorization !== undefined) {
    const value = authorization.trim();
    const basic = /^basic\s+(\S+)$/i.exec(value);
    if (basic) return splitPair(decodeBasic(basic[1]!));
    const pair = splitPair(value);
    if (pair) return pair;
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
  // A scheme word followed by a space (`Bearer x:y`) is not the raw form.
  if (/\s/.test(value)) return undefined;
  // Control characters and over-long parts are refused here, at the edge, before any store sees them.
  if (colon > MAX_USERNAME || value.length - colon - 1 > MAX_API_KEY || CONTROL.test(value)) return undefined;
  return { username: value.slice(0, colon), apiKey: value.slice(colon + 1) };
}

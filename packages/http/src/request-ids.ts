/**
 * Request ids (`X-DataSift-Request-Id`: 32 lowercase hex digits, 128 random bits). Made 256 at a time:
 * random bytes from Web Crypto (the fetch face runs outside Node too) written out as one hex text, each
 * id a slice of it. `crypto.randomUUID().replaceAll('-', '')` per request built two strings out of about
 * thirty pieces, some 900 bytes of garbage a request.
 */
const IDS_AT_ONCE = 256;
const HEX = new TextEncoder().encode('0123456789abcdef');
const ASCII = new TextDecoder();

let batch = '';
let next = IDS_AT_ONCE;

export function requestId(): string {
  if (next === IDS_AT_ONCE) {
    batch = hexOf(crypto.getRandomValues(new Uint8Array(16 * IDS_AT_ONCE)));
    next = 0;
  }
  const at = 32 * next++;
  return batch.slice(at, at + 32);
}

function hexOf(bytes: Uint8Array): string {
  const digits = new Uint16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) digits[i] = DIGIT_PAIRS[bytes[i]!]!;
  return ASCII.decode(digits);
}

/**
 * Each byte's two hex digits as one 16-bit unit, its bytes in the order the text reads them (written
 * through a byte view, so whatever the machine's byte order): one store a byte instead of two.
 */
const DIGIT_PAIRS = new Uint16Array(256);
{
  const pairBytes = new Uint8Array(DIGIT_PAIRS.buffer);
  for (let b = 0; b < 256; b++) {
    pairBytes[2 * b] = HEX[b >> 4]!;
    pairBytes[2 * b + 1] = HEX[b & 15]!;
  }
}

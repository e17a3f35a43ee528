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
  const digits = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    digits[2 * i] = HEX[bytes[i]! >> 4]!;
    digits[2 * i + 1] = HEX[bytes[i]! & 15]!;
  }
  return ASCII.decode(digits);
}

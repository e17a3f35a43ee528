import { inflateSync } from 'node:zlib';

/** An 8-bit RGB(A) image, as headless Chromium writes screenshots. */
export interface Pixels {
  width: number;
  height: number;
  /** Channels per pixel (3 or 4). */
  channels: number;
  data: Uint8Array;
}

/** Decodes a non-interlaced 8-bit truecolour PNG (enough for browser screenshots). */
export function decodePng(png: Uint8Array): Pixels {
  const buf = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const body = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      const colour = body[9];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || body[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${body[12]}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? data[out + x - channels]! : 0;
      const b = y > 0 ? data[out - stride + x]! : 0;
      const c = x >= channels && y > 0 ? data[out - stride + x - channels]! : 0;
      let v = line[x]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      data[out + x] = v & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** Pixels in a rectangle whose colour is strongly saturated (a data series, not text, grid or background). */
export function saturatedPixels(img: Pixels, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(img.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) {
      const i = (y * img.width + x) * img.channels;
      const r = img.data[i]!;
      const g = img.data[i + 1]!;
      const b = img.data[i + 2]!;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) n++;
    }
  }
  return n;
}

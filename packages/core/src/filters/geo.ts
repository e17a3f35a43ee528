import { numberOf } from './target-reader.ts';

/*
 * The geo operators' maths: a point read from the forms interactions carry, the great-circle distance of
 * `geo_radius`, and the point-in-polygon test of `geo_polygon`.
 */

export interface GeoPoint {
  lat: number;
  lon: number;
}

/** A point from `"lat,lon"` text, a `[lat, lon]` pair, or an object with lat/latitude and lon/lng/longitude. */
export function geoOf(x: unknown): GeoPoint | undefined {
  if (typeof x === 'string') {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(x);
    return m ? { lat: Number(m[1]), lon: Number(m[2]) } : undefined;
  }
  if (Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number') return { lat: x[0], lon: x[1] };
  if (x && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    const lat = numberOf(o.latitude ?? o.lat);
    const lon = numberOf(o.longitude ?? o.lon ?? o.lng);
    if (Number.isFinite(lat) && Number.isFinite(lon)) return { lat, lon };
  }
  return undefined;
}

/** Great-circle distance in km on a sphere of the Earth's mean radius (haversine: stable for short distances). */
export function haversineKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Even-odd ray casting; vertices are `[lat, lon]`. */
export function insidePolygon(p: GeoPoint, poly: Array<[number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [yi, xi] = poly[i]!;
    const [yj, xj] = poly[j]!;
    if (yi > p.lat !== yj > p.lat && p.lon < ((xj - xi) * (p.lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

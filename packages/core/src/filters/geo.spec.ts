import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { geoOf, haversineKm, insidePolygon } from './geo.ts';

const point = fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });

describe('geo maths', () => {
  it('reads a point from text, a pair or an object, and nothing from anything else', () => {
    expect(geoOf(' 51.5, -0.12 ')).toEqual({ lat: 51.5, lon: -0.12 });
    expect(geoOf([51.5, -0.12])).toEqual({ lat: 51.5, lon: -0.12 });
    expect(geoOf({ latitude: '51.5', longitude: -0.12 })).toEqual({ lat: 51.5, lon: -0.12 });
    expect(geoOf({ lat: 1, lng: 2 })).toEqual({ lat: 1, lon: 2 });
    expect([geoOf('51.5'), geoOf([1]), geoOf({ lat: 1 }), geoOf(7)]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('measures great-circle distances in km (London to Paris about 344)', () => {
    expect(haversineKm({ lat: 51.5074, lon: -0.1278 }, { lat: 48.8566, lon: 2.3522 })).toBeCloseTo(343.6, 0);
    // A quarter of the equator.
    expect(haversineKm({ lat: 0, lon: 0 }, { lat: 0, lon: 90 })).toBeCloseTo((Math.PI / 2) * 6371.0088, 6);
  });

  test.prop([point, point])('distance is symmetric, never negative, never more than half the circumference', (a, b) => {
    const d = haversineKm(a, b);
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThanOrEqual(Math.PI * 6371.0088 + 1e-6);
    expect(d).toBeCloseTo(haversineKm(b, a), 6);
  });

  it('tells inside from outside a polygon, concave ones included', () => {
    // An L: the square 0..10 without its top-right quarter.
    const l: Array<[number, number]> = [[0, 0], [0, 10], [5, 10], [5, 5], [10, 5], [10, 0]];
    expect(insidePolygon({ lat: 2, lon: 2 }, l)).toBe(true);
    expect(insidePolygon({ lat: 7, lon: 2 }, l)).toBe(true);
    expect(insidePolygon({ lat: 7, lon: 7 }, l)).toBe(false);
    expect(insidePolygon({ lat: -1, lon: 2 }, l)).toBe(false);
  });
});

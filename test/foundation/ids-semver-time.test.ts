import { validate as uuidValidate, version as uuidVersion } from 'uuid';
import { describe, expect, it } from 'vitest';
import { bumpSemVer, compareSemVer, isOctxTime, isSemVer, isUuidV7, newId, toOctxTime } from '../../src/index.js';

describe('newId', () => {
  it('mints canonical lowercase UUIDv7 that the uuid package also accepts as version 7', () => {
    for (let i = 0; i < 2000; i++) {
      const id = newId();
      expect(isUuidV7(id)).toBe(true);
      expect(uuidValidate(id)).toBe(true);
      expect(uuidVersion(id)).toBe(7);
    }
  });

  it('is strictly increasing within one process, even inside one millisecond', () => {
    const ids = Array.from({ length: 50_000 }, newId);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('isUuidV7 refuses upper case, v4, braces and urn forms', () => {
    expect(isUuidV7('019c1234-5678-7abc-8def-0123456789ab')).toBe(true);
    expect(isUuidV7('019C1234-5678-7ABC-8DEF-0123456789AB')).toBe(false);
    expect(isUuidV7('9b2f6c1e-8a4d-4c3b-9e2f-1a2b3c4d5e6f')).toBe(false);
    expect(isUuidV7('{019c1234-5678-7abc-8def-0123456789ab}')).toBe(false);
    expect(isUuidV7('urn:uuid:019c1234-5678-7abc-8def-0123456789ab')).toBe(false);
    expect(isUuidV7('019c1234-5678-7abc-cdef-0123456789ab')).toBe(false); // variant
  });
});

describe('SemVer 2.0.0', () => {
  it('accepts the spec forms and refuses a v prefix, leading zeros and partial versions', () => {
    for (const ok of ['1.0.0', '0.0.1', '1.0.0-rc.1+build.5', '1.0.0-alpha', '10.20.30', '1.0.0-0A.is.legal']) expect(isSemVer(ok)).toBe(true);
    for (const bad of ['v1.0.0', '1.0', '01.0.0', '1.0.0-01', '1.0.0+', '1.0.0-', ' 1.0.0']) expect(isSemVer(bad)).toBe(false);
  });

  it('orders by precedence: pre-releases before the release, numeric before alphanumeric, build ignored', () => {
    const sorted = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.1.0', '2.0.0'];
    for (let i = 1; i < sorted.length; i++) expect(compareSemVer(sorted[i - 1]!, sorted[i]!)).toBeLessThan(0);
    expect(compareSemVer('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(compareSemVer('99999999999999999999.0.0', '99999999999999999998.0.0')).toBeGreaterThan(0);
    expect(() => compareSemVer('v1', '1.0.0')).toThrow(TypeError);
  });

  it('bumps versions', () => {
    expect(bumpSemVer('1.2.3')).toBe('1.2.4');
    expect(bumpSemVer('1.2.3-rc.1')).toBe('1.2.3');
    expect(bumpSemVer('1.2.3', 'minor')).toBe('1.3.0');
    expect(bumpSemVer('1.2.3+b', 'major')).toBe('2.0.0');
  });
});

describe('OCTX UTC time profile', () => {
  it('accepts Z times with optional fractions and refuses offsets, lower case and impossible dates', () => {
    for (const ok of ['2026-07-12T10:00:00Z', '2026-07-12T10:00:00.123456Z', '2024-02-29T23:59:59Z']) expect(isOctxTime(ok)).toBe(true);
    for (const bad of [
      '2026-07-12T10:00:00+00:00',
      '2026-07-12t10:00:00z',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-07-12T24:00:00Z',
      '2026-07-12T10:00:60Z',
      '2026-07-12 10:00:00Z',
    ])
      expect(isOctxTime(bad)).toBe(false);
  });

  it('turns a Date into whole UTC seconds and keeps valid strings exactly', () => {
    expect(toOctxTime(new Date('2026-07-12T10:00:00.789Z'))).toBe('2026-07-12T10:00:00Z');
    expect(toOctxTime('2026-07-12T10:00:00.5Z')).toBe('2026-07-12T10:00:00.5Z');
    expect(toOctxTime('2026-07-12T10:00:00+02:00')).toBeUndefined();
    expect(toOctxTime(new Date('nope'))).toBeUndefined();
  });
});

/**
 * The record spill encodes lines straight into one reused
 * 256 KiB buffer. Whatever the lines, the file must hold the bytes the former implementation
 * wrote (the lines joined with newlines and encoded as one string) — lone surrogates (WTF-16 a
 * builder never passes, replaced by U+FFFD), line and paragraph separators, astral characters,
 * lines at the exact worst-case bound of the buffer, alternating huge and small lines — with
 * snapshots taken at any point; `maxLineBytes` is the largest `Buffer.byteLength` of a line.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordSpill } from '../../src/structure/record-spill.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function spillFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'octx-record-spill-edges-'));
  dirs.push(dir);
  return join(dir, 'chunks.jsonl');
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** What the former implementation wrote for `lines`: joined, then encoded once. */
const joined = (lines: readonly string[]): Buffer => Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');

function edgeLines(): string[] {
  const lines = [
    'a\uD800b',
    '\uDC00',
    'ends high \uD83D',
    '\uDE00 starts low',
    '\uD83D\uDE00',
    '\u2028\u2029',
    '😀'.repeat(1000),
    '',
    // 87,381 × 3 + 1 = 262,144: exactly the buffer when it is empty; one unit more is written alone.
    '€'.repeat(87_381),
    '€'.repeat(87_382),
    '€'.repeat(87_380),
    'x',
    '€'.repeat(87_380) + '\uD800',
    'x'.repeat(262_143),
    'x'.repeat(262_144),
    'y',
  ];
  for (let i = 0; i < 200; i++) lines.push(i % 2 === 1 ? '€'.repeat(40_000 + i) : `s${i}\uD800`);
  for (let i = 0; i < 60; i++) lines.push('\uD83D'.repeat(i * 1500));
  return lines;
}

describe('RecordSpill edge lines', () => {
  it('writes the bytes the joined-string encoding wrote, with snapshots anywhere', () => {
    const lines = edgeLines();
    const file = spillFile();
    const spill = new RecordSpill(file);
    const snapshotsAfter = new Set([0, 5, 8, 9, 10, 12, 13, 14, 50, 51, 215, 260]);
    lines.forEach((line, i) => {
      spill.append(line);
      if (!snapshotsAfter.has(i)) return;
      const entry = spill.snapshot();
      const expected = joined(lines.slice(0, i + 1));
      expect({ i, size: entry.size, sha256: entry.sha256 }).toEqual({ i, size: expected.length, sha256: sha256(expected) });
    });
    const entry = spill.snapshot();
    spill.close();
    const expected = joined(lines);
    expect(readFileSync(file).equals(expected)).toBe(true);
    expect(entry.sha256).toBe(sha256(expected));
    expect(spill.lines).toBe(lines.length);
    expect(spill.maxLineBytes).toBe(Math.max(...lines.map((l) => Buffer.byteLength(l, 'utf8'))));
  });
});

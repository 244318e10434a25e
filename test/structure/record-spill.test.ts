import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordSpill, readSpilledRecords } from '../../src/structure/record-spill.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function spillFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'octx-record-spill-'));
  dirs.push(dir);
  return join(dir, 'chunks.jsonl');
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Lines of every size class the spill treats differently: short, multi-byte, about a buffer's worth, longer than a buffer. */
function mixedLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) lines.push(JSON.stringify({ i, text: `line ${i} ` + 'é€😀'.repeat(i % 50) + 'x'.repeat(i % 700) }));
  // 87,381 units × 3 + 1 newline is one byte over the 256 KiB buffer: written on its own.
  lines.push(JSON.stringify({ big: '€'.repeat(87_381) }));
  lines.push(JSON.stringify({ ascii: 'a'.repeat(200_000) }));
  lines.push(JSON.stringify({ after: 'the long ones' }));
  return lines;
}

describe('RecordSpill', () => {
  it('writes exactly the lines, each ended by a newline, and hashes what it wrote', () => {
    const file = spillFile();
    const spill = new RecordSpill(file);
    const lines = mixedLines();
    for (const line of lines) spill.append(line);
    const entry = spill.snapshot();
    spill.close();
    const expected = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    const written = readFileSync(file);
    expect(written.equals(expected)).toBe(true);
    expect(entry.size).toBe(expected.length);
    expect(entry.sha256).toBe(sha256(expected));
    expect(spill.lines).toBe(lines.length);
    expect(spill.maxLineBytes).toBe(Math.max(...lines.map((l) => Buffer.byteLength(l, 'utf8'))));
  });

  it('keeps appending correctly after a snapshot (its buffer is reused) and reads the records back in order', async () => {
    const file = spillFile();
    const spill = new RecordSpill(file);
    const lines = mixedLines();
    const half = lines.length >> 1;
    for (const line of lines.slice(0, half)) spill.append(line);
    const first = spill.snapshot();
    for (const line of lines.slice(half)) spill.append(line);
    const second = spill.snapshot();
    spill.close();
    const expected = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    expect(first.size).toBe(
      Buffer.byteLength(
        lines
          .slice(0, half)
          .map((l) => `${l}\n`)
          .join(''),
        'utf8',
      ),
    );
    expect(second.sha256).toBe(sha256(expected));
    const read: { line: number; record: Record<string, unknown> }[] = [];
    for await (const r of readSpilledRecords(file, second.size)) read.push(r);
    expect(read.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
    expect(read.map((r) => JSON.stringify(r.record))).toEqual(lines);
  });

  it('counts the longest line in UTF-8 bytes, not in UTF-16 units', () => {
    const spill = new RecordSpill(spillFile());
    spill.append('"' + 'a'.repeat(10) + '"');
    spill.append('"' + '😀'.repeat(5) + '"'); // 12 units, 22 bytes
    spill.snapshot();
    spill.close();
    expect(spill.maxLineBytes).toBe(22);
  });
});

import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonlSplitter, parseJsonlLine, readJsonlLines, type JsonlLine } from '../../src/read/index.js';

async function lines(chunks: (string | Buffer)[], options = {}): Promise<{ line: number; text: string; empty: boolean }[]> {
  const out = [];
  for await (const l of readJsonlLines(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))), options)) {
    out.push({ line: l.line, text: l.bytes.toString(), empty: l.empty });
  }
  return out;
}

describe('readJsonlLines', () => {
  it('splits LF and CRLF lines, with or without a final newline', async () => {
    expect(await lines(['{"a":1}\n{"b":2}\n'])).toEqual([
      { line: 1, text: '{"a":1}', empty: false },
      { line: 2, text: '{"b":2}', empty: false },
    ]);
    expect(await lines(['{"a":1}\r\n{"b":2}'])).toEqual([
      { line: 1, text: '{"a":1}', empty: false },
      { line: 2, text: '{"b":2}', empty: false },
    ]);
  });

  it('joins lines split across chunks, including a CR/LF split', async () => {
    expect(await lines(['{"a"', ':1}\r', '\n{"b', '":2}'])).toEqual([
      { line: 1, text: '{"a":1}', empty: false },
      { line: 2, text: '{"b":2}', empty: false },
    ]);
  });

  it('reports empty and whitespace-only lines; an empty file has no lines; "\\n" is one empty line', async () => {
    expect(await lines(['{"a":1}\n\n \t\r\n{"b":2}\n'])).toMatchObject([{ empty: false }, { line: 2, empty: true }, { line: 3, empty: true }, { line: 4, empty: false }]);
    expect(await lines([])).toEqual([]);
    expect(await lines([''])).toEqual([]);
    expect(await lines(['\n'])).toEqual([{ line: 1, text: '', empty: true }]);
  });

  it('refuses a line above maxLineSize without assembling it', async () => {
    const gen = readJsonlLines(Readable.from([Buffer.from('{"a":1}\n'), Buffer.alloc(600, 0x61), Buffer.alloc(600, 0x61)]), { maxLineSize: 1000, path: 'data/chunks.jsonl' });
    await expect(async () => {
      for await (const _ of gen) void _;
    }).rejects.toMatchObject({ code: 'OCTX_RESOURCE_LIMIT', issues: [expect.objectContaining({ path: 'data/chunks.jsonl', line: 2 })] });
  });

  it('refuses more lines than maxLines', async () => {
    await expect(lines(['1\n2\n3\n'], { maxLines: 2 })).rejects.toMatchObject({ code: 'OCTX_RESOURCE_LIMIT' });
  });

  it('yields lines before the stream ends (lazy)', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 1000; i++) {
        pulled += 1;
        yield Buffer.from(`{"i":${i}}\n`);
      }
    }
    const it = readJsonlLines(source());
    const first = await it.next();
    expect(first.value).toMatchObject({ line: 1 });
    expect(pulled).toBe(1);
    await it.return();
  });

  it('the sync splitter hands out byte ranges, flags ASCII and counts lines', () => {
    const s = new JsonlSplitter();
    const got: [string, number, boolean][] = [];
    const cb = (buf: Buffer, start: number, end: number, line: number, ascii: boolean): void => {
      got.push([buf.toString('utf8', start, end), line, ascii]);
    };
    s.push(Buffer.from('{"a":1}\r\n{"b"'), cb);
    s.push(Buffer.from(':"é"}\n{"c":3}'), cb);
    s.end(cb);
    expect(got).toEqual([
      ['{"a":1}', 1, true],
      ['{"b":"é"}', 2, false],
      // Emitted by end() from the carried bytes, which are checked on their own.
      ['{"c":3}', 3, true],
    ]);
    expect(s.lines).toBe(3);
  });
});

describe('parseJsonlLine', () => {
  const line = (text: string | Buffer, n = 1): JsonlLine => {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    return { line: n, bytes, empty: bytes.toString().trim() === '' };
  };
  it('maps each failure to its code', () => {
    expect(parseJsonlLine(line('{"a":1}'))).toEqual({ ok: true, record: { a: 1 } });
    expect(parseJsonlLine(line(''))).toMatchObject({ ok: false, code: 'OCTX_JSONL_EMPTY_LINE' });
    expect(parseJsonlLine(line('{"a":'))).toMatchObject({ ok: false, code: 'OCTX_JSON_INVALID' });
    expect(parseJsonlLine(line(Buffer.from([0x7b, 0xff, 0x7d])))).toMatchObject({ ok: false, code: 'OCTX_JSON_INVALID' });
    expect(parseJsonlLine(line('\ufeff{}'))).toMatchObject({ ok: false, code: 'OCTX_JSON_INVALID' });
    expect(parseJsonlLine(line('{"a":1,"a":1}'))).toMatchObject({ ok: false, code: 'OCTX_JSON_DUPLICATE_KEY' });
    expect(parseJsonlLine(line('null'))).toMatchObject({ ok: false, code: 'OCTX_JSONL_RECORD_TYPE' });
    expect(parseJsonlLine(line('[{}]'))).toMatchObject({ ok: false, code: 'OCTX_JSONL_RECORD_TYPE' });
    expect(parseJsonlLine(line('{"w":1e999}'))).toMatchObject({ ok: true, nonFinite: 'w' });
    expect(parseJsonlLine(line('[[[1]]]'), 2)).toMatchObject({ ok: false, code: 'OCTX_JSON_INVALID' });
  });
});

/**
 * Reading adapter input files: a `.jsonl`/`.ndjson` file holds one JSON object per line; any
 * other file holds one JSON object or an array of objects. Parsing is strict (no duplicate keys, no NaN/Infinity) and every object keeps its
 * file and line, so errors can point at it.
 */
import { readRegularFile } from '../../package/regular-file.js';
import { fsReason } from '../../model/fs-errors.js';
import { OctxError } from '../../model/errors.js';
import { parseStrictJson } from '../../read/strict-json.js';
import type { InputLocation } from './input-issues.js';

/** One input object and where it came from. */
export interface LocatedObject {
  readonly value: unknown;
  /** The file as given. */
  readonly path: string;
  /** 1-based line (JSONL), or the line where the array element starts (JSON). */
  readonly line?: number;
}

function lineOfOffset(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Start offsets of the top-level elements of a JSON array text (best effort; for line numbers). */
function arrayElementOffsets(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (depth === 1 && expectValue && ch !== ']') {
      out.push(i);
      expectValue = false;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      depth++;
      if (depth === 1 && ch === '[') expectValue = true;
    } else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 1) expectValue = true;
  }
  return out;
}

/**
 * Reads the objects of one JSON or JSONL file.
 * @throws OctxError `OCTX_IO_ERROR` (unreadable), `OCTX_JSON_INVALID`, `OCTX_JSON_DUPLICATE_KEY`
 */
export async function readJsonObjects(file: string): Promise<LocatedObject[]> {
  let text: string;
  try {
    // Not readFile: a FIFO named as input would wait for a writer for ever.
    text = await readRegularFile(file);
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_IO_ERROR', path: file, message: `cannot read ${file}: ${fsReason(e, file)}` });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const parse = (src: string, line?: number): unknown => {
    const r = parseStrictJson(src);
    if (!r.ok)
      throw OctxError.of({
        code: r.kind === 'duplicate-key' ? 'OCTX_JSON_DUPLICATE_KEY' : 'OCTX_JSON_INVALID',
        path: file,
        ...(line !== undefined ? { line } : {}),
        message: r.message,
      });
    if (r.nonFinite !== undefined)
      throw OctxError.of({ code: 'OCTX_JSON_INVALID', path: file, ...(line !== undefined ? { line } : {}), message: `number out of range at ${r.nonFinite || 'the root'}` });
    return r.value;
  };
  if (/\.(jsonl|ndjson)$/i.test(file)) {
    const out: LocatedObject[] = [];
    const lines = text.split('\n');
    lines.forEach((raw, i) => {
      const src = raw.replace(/\r$/, '');
      if (src.trim() === '') return;
      out.push({ value: parse(src, i + 1), path: file, line: i + 1 });
    });
    return out;
  }
  const value = parse(text);
  if (Array.isArray(value)) {
    const offsets = arrayElementOffsets(text);
    return (value as unknown[]).map((v, i) => ({ value: v, path: file, ...(offsets[i] !== undefined ? { line: lineOfOffset(text, offsets[i]) } : {}) }));
  }
  return [{ value, path: file, line: 1 }];
}

/**
 * A `locate` function over objects read by {@link readJsonObjects}: the file and line of object
 * `index`, or `undefined` past the end.
 */
export function locatorOf(objects: readonly LocatedObject[]): (index: number) => InputLocation | undefined {
  return (index) => {
    const o = objects[index];
    return o ? { path: o.path, ...(o.line !== undefined ? { line: o.line } : {}) } : undefined;
  };
}

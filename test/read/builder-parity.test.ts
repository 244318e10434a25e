/**
 * Issue 16, item 8: the validator must not certify what the builder refuses. Each case is a
 * crafted package the old reader accepted (or misreported) and the builder cannot produce:
 * lone-surrogate escapes in JSONL values and keys, integer literals beyond 2^53 − 1 where the
 * schema needs an integer, and capabilities named after Object.prototype members. (Malformed
 * Arrow metadata: arrow-metadata.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { openPackage, parseStrictJson, validatePackage, type ValidationReport } from '../../src/read/index.js';
import { parseVectorConfigBytes } from '../../src/read/open-package.js';
import { GUIDE_MD, SAG_DECL, entriesOf, genStructure, structureFiles, writeDir, type FileMap, type PackageSpec } from './helpers.js';

async function run(spec: PackageSpec): Promise<ValidationReport> {
  return validatePackage(await writeDir(entriesOf(spec)));
}

/** A valid structure package with one JSONL file's text replaced. */
function withJsonl(path: string, edit: (text: string) => string): PackageSpec {
  const files: FileMap = structureFiles(genStructure({ docs: 1, chunksPerDoc: 2 }));
  files[path] = edit(files[path] as string);
  return { files, capabilities: SAG_DECL };
}

/** The sag-structured issues about the edited line itself (a refused record also leaves its references dangling). */
const sagIssues = (r: ValidationReport) =>
  r.capabilities['sag-structured']!.issues.filter((i) => i.code === 'OCTX_JSON_INVALID' || i.code === 'OCTX_SCHEMA_VALIDATION').map((i) => ({
    code: i.code,
    path: i.path,
    line: i.line,
    field: i.field,
  }));

describe('lone surrogate escapes in JSONL (the builder refuses lone surrogates)', () => {
  it('refuses one in a value, with the field', async () => {
    const r = await run(withJsonl('data/entities.jsonl', (t) => t.replace('"name":"Entity 0.0"', '"name":"Entity \\ud800"')));
    expect(r.valid).toBe(false);
    expect(sagIssues(r)).toEqual([{ code: 'OCTX_JSON_INVALID', path: 'data/entities.jsonl', line: 1, field: 'name' }]);
  });

  it('refuses one in a key and a low surrogate alone; a well-formed escaped pair stays valid', async () => {
    const key = await run(withJsonl('data/events.jsonl', (t) => t.replace('"title":', '"x\\udc00":"v","title":')));
    expect(sagIssues(key)).toEqual([{ code: 'OCTX_JSON_INVALID', path: 'data/events.jsonl', line: 1, field: 'x\udc00' }]);
    const nested = await run(withJsonl('data/events.jsonl', (t) => t.replace('"title":', '"extra":{"list":["ok","\\uDFFF"]},"title":')));
    expect(sagIssues(nested)).toEqual([{ code: 'OCTX_JSON_INVALID', path: 'data/events.jsonl', line: 1, field: 'extra.list[1]' }]);
    const pair = await run(withJsonl('data/entities.jsonl', (t) => t.replace('"name":"Entity 0.0"', '"name":"Entity \\ud83d\\ude00 \\\\ud800"')));
    expect(pair.issues).toEqual([]);
    expect(pair.valid).toBe(true);
  });

  it('parseStrictJson reports the kind and the place; vectors/config.json is refused too', async () => {
    expect(parseStrictJson('"\\ud800"')).toMatchObject({ ok: false, kind: 'surrogate', at: '' });
    expect(parseStrictJson('{"a":[1,{"b":"\\udbff"}]}')).toMatchObject({ ok: false, kind: 'surrogate', at: 'a[1].b' });
    expect(parseStrictJson('{"a":"\\ud800\\udc00"}')).toMatchObject({ ok: true });
    // The manifest keeps the reference's reading: its digest rule reports the string (format.test.ts).
    expect(parseStrictJson('{"a":"\\ud800"}', { allowLoneSurrogates: true })).toMatchObject({ ok: true });
    expect(() => parseVectorConfigBytes(Buffer.from('{"model":"m\\ud800","dimensions":4,"normalized":true}'), 100)).toThrow(
      expect.objectContaining({ code: 'OCTX_VECTOR_CONFIG_INVALID' }),
    );
  });
});

describe('integer literals beyond 2^53 − 1 (the builder refuses unsafe integers)', () => {
  for (const literal of ['9007199254740993', '9007199254740992', '1e300']) {
    it(`refuses ordinal ${literal} instead of reading a rounded value`, async () => {
      const r = await run(withJsonl('data/chunks.jsonl', (t) => t.replace('"ordinal":1', `"ordinal":${literal}`)));
      expect(r.valid).toBe(false);
      expect(sagIssues(r)).toEqual([{ code: 'OCTX_SCHEMA_VALIDATION', path: 'data/chunks.jsonl', line: 2, field: 'ordinal' }]);
    });
  }

  it('keeps 2^53 − 1 and refuses an unsafe level', async () => {
    const max = await run(withJsonl('data/chunks.jsonl', (t) => t.replace('"ordinal":1', '"ordinal":9007199254740991')));
    expect(max.issues).toEqual([]);
    const s = genStructure({ docs: 1, chunksPerDoc: 2 });
    s.events[1].parent_id = s.events[0].id;
    s.events[1].level = 2;
    const files = structureFiles(s);
    files['data/events.jsonl'] = (files['data/events.jsonl'] as string).replace('"level":2', '"level":9007199254740993');
    const r = await run({ files, capabilities: SAG_DECL });
    expect(sagIssues(r).filter((i) => i.field === 'level')).toEqual([{ code: 'OCTX_SCHEMA_VALIDATION', path: 'data/events.jsonl', line: 2, field: 'level' }]);
  });

  it('the builder refuses the same ordinal', async () => {
    const b = new PackageBuilder({ asset: { name: 'A' } });
    b.addDocument({ path: 'a.md', markdown: '# A\n' });
    try {
      const documentId = '019c0000-0000-7000-8000-0000000000aa';
      expect(() => b.addChunk({ id: '019c0000-0000-7000-8000-0000000000ab', document_id: documentId, ordinal: 2 ** 53 + 2, text: 't' })).toThrow(
        expect.objectContaining({ code: 'OCTX_RECORD_INVALID' }),
      );
    } catch (e) {
      if (!isOctxError(e)) throw e;
    } finally {
      await b.dispose();
    }
  });
});

describe('capabilities named after Object.prototype members are unknown, never validated', () => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    it(`${name}: OCTX_CAPABILITY_UNSUPPORTED warning, valid but not fully validated`, async () => {
      const files: FileMap = { 'knowledge/guide.md': GUIDE_MD };
      // JSON.parse makes "__proto__" an own key; a literal object would set the prototype instead.
      const spec: PackageSpec = { files, edit: (m) => (m.capabilities = JSON.parse(`{${JSON.stringify(name)}:{"version":"0.1"}}`)) };
      const r = await run(spec);
      expect(r.valid).toBe(true);
      expect(r.fullyValidated).toBe(false);
      expect(Object.keys(r.capabilities)).toEqual([name]);
      expect(Object.getOwnPropertyDescriptor(r.capabilities, name)!.value).toEqual({
        valid: null,
        issues: [expect.objectContaining({ code: 'OCTX_CAPABILITY_UNSUPPORTED', severity: 'warning', field: `capabilities.${name}` })],
      });
      expect(Object.getPrototypeOf(r.capabilities)).toBe(Object.prototype);
      const pkg = await openPackage(await writeDir(entriesOf(spec)));
      try {
        expect(Object.keys(pkg.info.capabilities)).toEqual([name]);
        expect(Object.getOwnPropertyDescriptor(pkg.info.capabilities, name)!.value).toBe('0.1');
      } finally {
        await pkg.close();
      }
    });
  }
});

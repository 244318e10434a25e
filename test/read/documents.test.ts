import { describe, expect, it } from 'vitest';
import { readConceptDocument } from '../../src/knowledge/concept.js';
import { stripBom } from '../../src/knowledge/frontmatter.js';
import { reservedDocumentProblems } from '../../src/knowledge/reserved.js';
import { issue, type OctxIssue } from '../../src/model/errors.js';
import { isConceptPath } from '../../src/model/paths.js';
import { ConceptDocumentScanner, readKnowledgeDocument } from '../../src/read/documents.js';

const ID = '019c1234-5678-7abc-8def-0123456789ab';

/**
 * What `readKnowledgeDocument` did before it stopped decoding Concept bodies: decode the whole
 * file with a fatal TextDecoder, strip one BOM, run the rules on the full text.
 */
function wholeTextReading(path: string, bytes: Buffer): { text: string; issues: OctxIssue[]; documentId?: string; frontmatter?: Record<string, unknown> } {
  const concept = isConceptPath(path);
  let text: string;
  try {
    text = stripBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return { text: '', issues: [issue({ code: concept ? 'OCTX_DOCUMENT_FRONTMATTER' : 'OCTX_OKF_RESERVED_INVALID', path, message: `${path} is not valid UTF-8` })] };
  }
  if (!concept) return { text, issues: reservedDocumentProblems(path, text).map((message) => issue({ code: 'OCTX_OKF_RESERVED_INVALID', path, message })) };
  const r = readConceptDocument(path, text);
  return { text, issues: r.issues, ...(r.documentId === undefined ? {} : { documentId: r.documentId }), ...(r.frontmatter === undefined ? {} : { frontmatter: r.frontmatter }) };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const b = (...parts: (string | Buffer | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.isBuffer(p) ? p : Buffer.from(p))));
const fm = `type: Reference\ntitle: "标题"\noctx:\n  document_id: ${ID}\n`;

const CONCEPTS: [string, Buffer][] = [
  ['a plain document', b(`---\n${fm}---\n\n# 标题\n\n正文。\n`)],
  ['CRLF throughout', b(`---\r\n${fm.replace(/\n/g, '\r\n')}---\r\n\r\n# T\r\n`)],
  ['a leading BOM', b(BOM, `---\n${fm}---\n# T\n`)],
  ['two BOMs (only one is stripped)', b(BOM, BOM, `---\n${fm}---\n# T\n`)],
  ['a closing fence at the end of the file, no newline', b(`---\n${fm}---`)],
  ['a closing fence with CR at the end of the file', b(`---\n${fm}---\r`)],
  ['a closing fence with two CRs (not a fence)', b(`---\n${fm}---\r\r\n# T\n`)],
  ['a fence with trailing spaces (not a fence), closed later', b(`---\n${fm}--- \n---\n# T\n`)],
  ['a later "---" in the body', b(`---\n${fm}---\nbody\n---\nmore\n`)],
  ['an unclosed frontmatter', b(`---\n${fm}# T\n`)],
  ['no frontmatter', b('# Title\n\nBody.\n')],
  ['an opening fence with trailing text', b(`---x\n${fm}---\n`)],
  ['an opening fence at the end of the file', b('---')],
  ['a CR-only opening fence', b(`---\r${fm}---\n`)],
  ['an empty frontmatter', b('---\n---\n# T\n')],
  ['an empty file', b('')],
  ['a bad type and id', b('---\ntype: 1.0\noctx:\n  document_id: nope\n---\n# T\n')],
  ['a type that is a string only in YAML 1.2', b(`---\ntype: yes\noctx:\n  document_id: ${ID}\n---\n`)],
  ['unsafe YAML', b(`---\ntype: &a Reference\noctx:\n  document_id: ${ID}\n---\n`)],
  ['a control character in the frontmatter', b(`---\ntype: "a\u0085b\u0001"\noctx:\n  document_id: ${ID}\n---\n`)],
  ['a 4-byte character right before the fence', b(`---\n${fm}x: "😀"\n---\n😀\n`)],
  ['invalid UTF-8 in the body only', b(`---\n${fm}---\n# T\n`, [0xc3, 0x28], '\n')],
  ['invalid UTF-8 in the frontmatter', b('---\ntype: "', [0xff], `"\noctx:\n  document_id: ${ID}\n---\n`)],
  ['an encoded surrogate (ED A0 80)', b(`---\n${fm}---\n`, [0xed, 0xa0, 0x80])],
  ['an overlong NUL (C0 80)', b(`---\n${fm}---\n`, [0xc0, 0x80])],
  ['a code point above U+10FFFF', b(`---\n${fm}---\n`, [0xf4, 0x90, 0x80, 0x80])],
  ['a truncated sequence at the end', b(`---\n${fm}---\n`, [0xe4, 0xb8])],
  ['a noncharacter U+FFFE in the body (valid UTF-8)', b(`---\n${fm}---\n\ufffe\n`)],
];

const RESERVED: [string, string, Buffer][] = [
  ['knowledge/index.md', 'a root index with okf_version', b('---\nokf_version: "0.1"\n---\n# Home\n\n* [A](a.md) - a\n')],
  ['knowledge/index.md', 'a root index with a BOM and CRLF', b(BOM, '# Home\r\n\r\n* [A](a.md) - a\r\n')],
  ['knowledge/a/index.md', 'a nested index with frontmatter', b('---\nx: 1\n---\n# A\n* [B](b.md)\n')],
  ['knowledge/a/log.md', 'a log out of order', b('# Log\n\n## 2026-01-01\n* one\n\n## 2026-02-01\n* two\n')],
  ['knowledge/a/log.md', 'a log with invalid UTF-8 late in the body', b('# Log\n\n## 2026-01-01\n* one\n', [0xff])],
];

describe('readKnowledgeDocument', () => {
  for (const [what, bytes] of CONCEPTS) {
    it(`reads a Concept Document with ${what} exactly as a whole-text decode does`, () => {
      const path = 'knowledge/doc.md';
      const expected = wholeTextReading(path, bytes);
      const got = readKnowledgeDocument(path, bytes);
      expect(got.kind).toBe('concept');
      expect(got.issues).toEqual(expected.issues);
      expect(got.documentId).toEqual(expected.documentId);
      expect(got.frontmatter).toEqual(expected.frontmatter);
      expect(got.text).toBe(expected.text);
      expect(got.bytes).toBe(bytes);
    });
  }

  for (const [path, what, bytes] of RESERVED) {
    it(`reads ${path} with ${what} exactly as a whole-text decode does`, () => {
      const expected = wholeTextReading(path, bytes);
      const got = readKnowledgeDocument(path, bytes);
      expect(got.kind).toBe('reserved');
      expect(got.issues).toEqual(expected.issues);
      expect(got.text).toBe(expected.text);
    });
  }

  it('decodes a Concept body only when text is read, once, and keeps text enumerable', () => {
    const bytes = b(BOM, `---\n${fm}---\n\n# 标题\n\n${'正文。'.repeat(1000)}\n`);
    const doc = readKnowledgeDocument('knowledge/doc.md', bytes);
    expect(doc.issues).toEqual([]);
    expect(doc.documentId).toBe(ID);
    const descriptor = Object.getOwnPropertyDescriptor(doc, 'text')!;
    expect(typeof descriptor.get).toBe('function');
    expect(descriptor.enumerable).toBe(true);
    const first = doc.text;
    expect(first).toBe(bytes.toString('utf8', 3));
    expect(doc.text).toBe(first);
    expect({ ...doc }.text).toBe(first);
  });
});

describe('ConceptDocumentScanner (the validator reads Concept Documents as a stream)', () => {
  const scan = (bytes: Buffer, chunk: number, max?: number) => {
    const scanner = new ConceptDocumentScanner('knowledge/doc.md', max);
    for (let at = 0; at < bytes.length; at += chunk) scanner.push(bytes.subarray(at, at + chunk));
    return scanner.finish();
  };
  for (const [what, bytes] of CONCEPTS) {
    it(`finds what readKnowledgeDocument finds, in any chunking, for ${what}`, () => {
      const expected = readKnowledgeDocument('knowledge/doc.md', bytes);
      // 1-3 byte chunks cut every multi-byte sequence (the UTF-8 check carries them over).
      for (const chunk of [1, 2, 3, 7, 1 << 20]) {
        const got = scan(bytes, chunk);
        expect(got.issues, `chunk ${chunk}`).toEqual(expected.issues);
        expect(got.documentId, `chunk ${chunk}`).toEqual(expected.documentId);
      }
    });
  }

  it('keeps only the frontmatter: the body does not grow what it holds', () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    const got = scan(Buffer.concat([b(`---\n${fm}---\n`), body]), 64 * 1024, 1024);
    expect(got).toEqual({ issues: [], documentId: ID });
  });
});

describe('maxFrontmatterBytes: a frontmatter block above it is refused before YAML sees it', () => {
  const withBlock = (yaml: string, eol = '\n'): Buffer => b(`---${eol}${yaml}---${eol}# T${eol}`);
  /** A block of exactly `size` bytes: the id lines plus a padded title. */
  const blockOf = (size: number): string => {
    const fixed = `type: Reference\noctx:\n  document_id: ${ID}\ntitle: ""\n`;
    return `type: Reference\noctx:\n  document_id: ${ID}\ntitle: "${'t'.repeat(size - Buffer.byteLength(fixed))}"\n`;
  };
  const tooLarge = { code: 'OCTX_FRONTMATTER_TOO_LARGE', path: 'knowledge/doc.md', field: 'frontmatter' };

  it('accepts a block of exactly the limit and refuses one byte more, whole or streamed', () => {
    const max = 4096;
    const atLimit = withBlock(blockOf(max));
    expect(readKnowledgeDocument('knowledge/doc.md', atLimit, { maxFrontmatterBytes: max }).issues).toEqual([]);
    expect(readKnowledgeDocument('knowledge/doc.md', withBlock(blockOf(max), '\r\n'), { maxFrontmatterBytes: max + 4 }).issues).toEqual([]);
    const over = withBlock(blockOf(max + 1));
    const whole = readKnowledgeDocument('knowledge/doc.md', over, { maxFrontmatterBytes: max });
    expect(whole.issues).toEqual([expect.objectContaining({ ...tooLarge, severity: 'error' })]);
    expect(whole.documentId).toBeUndefined();
    const streamed = new ConceptDocumentScanner('knowledge/doc.md', max);
    streamed.push(over);
    expect(streamed.finish().issues).toEqual(whole.issues);
    // The same bytes under the default limit (1 MiB) are fine.
    expect(readKnowledgeDocument('knowledge/doc.md', over).issues).toEqual([]);
  });

  it('an unclosed block within the limit is still reported as unclosed, one beyond it as too large', () => {
    expect(readKnowledgeDocument('knowledge/doc.md', b(`---\n${fm}# T\n`), { maxFrontmatterBytes: 4096 }).issues[0]!.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    const long = b(`---\n${fm}title2: "${'x'.repeat(5000)}"\n# never closed\n`);
    expect(readKnowledgeDocument('knowledge/doc.md', long, { maxFrontmatterBytes: 4096 }).issues).toEqual([expect.objectContaining(tooLarge)]);
  });

  it('the root index.md frontmatter is bounded too', () => {
    const index = b(`---\nokf_version: "${'1'.repeat(5000)}"\n---\n# Home\n\n* [A](a.md) - a\n`);
    expect(readKnowledgeDocument('knowledge/index.md', index, { maxFrontmatterBytes: 4096 }).issues).toEqual([
      expect.objectContaining({ code: 'OCTX_FRONTMATTER_TOO_LARGE', path: 'knowledge/index.md' }),
    ]);
    expect(readKnowledgeDocument('knowledge/index.md', index).issues).toEqual([]);
  });
});

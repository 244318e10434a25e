import { describe, expect, it } from 'vitest';
import { prepareDocument } from '../../src/knowledge/document.js';
import { isOctxError, isUuidV7, type OctxError, PackageBuilder } from '../../src/index.js';

const ID = '019c1234-5678-7abc-8def-0123456789ab';
let counter = 0;
const mintId = (): string => `019c0000-0000-7000-8000-${String(++counter).padStart(12, '0')}`;

function prep(path: string, markdown: string | Uint8Array) {
  return prepareDocument({ path, markdown }, { mintId });
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isOctxError(e)) return e.code;
    throw e;
  }
  return undefined;
}

describe('concept documents: frontmatter completion', () => {
  it('adds type, title (first H1) and octx.document_id to plain Markdown, double-quoted', () => {
    const doc = prep('guide.md', '# Product Guide\n\nBody.\n');
    expect(doc.path).toBe('knowledge/guide.md');
    expect(doc.kind).toBe('concept');
    expect(isUuidV7(doc.documentId)).toBe(true);
    expect(doc.bytes.toString('utf8')).toBe(`---\ntype: "Document"\ntitle: "Product Guide"\noctx:\n  document_id: "${doc.documentId}"\n---\n\n# Product Guide\n\nBody.\n`);
  });

  it('takes the title from the file stem when there is no H1 outside code fences', () => {
    const doc = prep('how_to-install.md', '```\n# not a title\n```\nText.\n');
    expect(doc.title).toBe('how to install');
  });

  it('keeps a complete document byte for byte (the golden document)', () => {
    const text = `---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: ${ID}\n---\n\n# Guide\n\nPortable context.\n`;
    const doc = prep('guide.md', text);
    expect(doc.bytes.toString('utf8')).toBe(text);
    expect(doc.documentId).toBe(ID);
  });

  it('fills only missing keys and never overwrites existing ones, keeping comments', () => {
    const doc = prep('a.md', `---\n# a comment\ntitle: Mine # kept\ntags: [x, y]\n---\n# Other H1\n`);
    const text = doc.bytes.toString('utf8');
    expect(text).toContain('# a comment');
    expect(text).toContain('title: Mine # kept');
    expect(text).toContain('type: "Document"');
    expect(text).not.toContain('Other H1"');
    expect(doc.title).toBe('Mine');
    expect(text.endsWith('---\n# Other H1\n')).toBe(true);
  });

  it('adds document_id inside an existing block octx mapping, at its indentation', () => {
    const doc = prep('a.md', '---\ntype: Guide\noctx:\n    x-note: keep\ntags: [a]\n---\nBody\n');
    expect(doc.bytes.toString('utf8')).toBe(`---\ntype: Guide\noctx:\n    document_id: "${doc.documentId}"\n    x-note: keep\ntags: [a]\ntitle: "a"\n---\nBody\n`);
  });

  it('refuses to complete a flow-style octx mapping instead of rewriting it', () => {
    expect(codeOf(() => prep('a.md', '---\ntype: Guide\noctx: {x-note: keep}\n---\nBody\n'))).toBe('OCTX_DOCUMENT_FRONTMATTER');
  });

  it('keeps every existing value and its spelling when keys are added (YAML 1.1 and 1.2 readings)', () => {
    const fm = 'a: 12\nm: 1.0e+10\nlist: [ 1,  2 ]\nfolded: >\n    one\n    two\nnested:\n    deep: "x"   # note\n';
    const doc = prep('v.md', `---\n${fm}---\n# V\n`);
    expect(doc.bytes.toString('utf8')).toBe(`---\n${fm}type: "Document"\ntitle: "V"\noctx:\n  document_id: "${doc.documentId}"\n---\n# V\n`);
  });

  it('escapes control characters of a derived title so YAML 1.1 readers accept it', () => {
    const doc = prep('c.md', '# Price\u0080list\u007f\n');
    expect(doc.title).toBe('Price\u0080list\u007f');
    expect(doc.bytes.toString('utf8')).toContain('title: "Price\\u0080list\\u007f"');
  });

  it('leaves the body of a CRLF document untouched when it adds frontmatter', () => {
    const body = '# T\r\n\r\nmixed\nendings\r\n';
    const doc = prep('crlf.md', body);
    expect(doc.bytes.toString('utf8').endsWith(`---\r\n\r\n${body}`)).toBe(true);
  });

  it('accepts a leading BOM and never writes one; accepts CRLF and keeps it', () => {
    const doc = prep('a.md', `\ufeff---\r\ntype: T\r\ntitle: A\r\noctx:\r\n  document_id: ${ID}\r\n---\r\nBody\r\n`);
    expect(doc.bytes[0]).toBe(0x2d);
    const added = prep('b.md', '\ufeff---\r\ntitle: B\r\n---\r\nBody\r\n');
    expect(added.bytes.toString('utf8')).toBe(`---\r\ntitle: B\r\ntype: "Document"\r\noctx:\r\n  document_id: "${added.documentId}"\r\n---\r\nBody\r\n`);
  });

  it('decodes bytes strictly as UTF-8', () => {
    expect(prep('c.md', Buffer.from('# 中文标题\n\n正文。\n')).title).toBe('中文标题');
    expect(codeOf(() => prep('c.md', Buffer.from([0x23, 0x20, 0xff, 0xfe])))).toBe('OCTX_DOCUMENT_INVALID');
    expect(codeOf(() => prep('c.md', 'bad \ud800 surrogate'))).toBe('OCTX_DOCUMENT_INVALID');
  });

  it.each([
    ['an anchor and alias', '---\na: &x 1\nb: *x\n---\n'],
    ['an alias', '---\na: *x\n---\n'],
    ['a duplicate key', '---\ntitle: a\ntitle: b\n---\n'],
    ['a !!binary tag', '---\nx: !!binary aGVsbG8=\n---\n'],
    ['a !!timestamp tag', '---\nx: !!timestamp 2026-01-01\n---\n'],
    ['a custom tag', '---\nx: !!js/function "f"\n---\n'],
    ['a complex key', '---\n? [a, b]\n: c\n---\n'],
    ['a list root', '---\n- a\n- b\n---\n'],
    ['an unclosed block', '---\ntitle: a\n'],
    ['a control character', '---\ntitle: "a\u0007"\n---\n'],
    // A marker with trailing text does not close the block but starts a second YAML document.
    ['a second document after "--- "', '---\ntype: Guide\n--- \ntitle: b\n---\n# B\n'],
    ['a second document after "--- key: value"', '---\ntype: Guide\n--- title: b\n---\n# B\n'],
  ])('refuses frontmatter with %s', (_name, text) => {
    expect(codeOf(() => prep('x.md', text))).toBe('OCTX_DOCUMENT_FRONTMATTER');
  });

  it('refuses a type that is empty, not a string, or a string only under YAML 1.2', () => {
    expect(codeOf(() => prep('x.md', '---\ntype: ""\n---\n'))).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(codeOf(() => prep('x.md', '---\ntype: 1.0\n---\n'))).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(codeOf(() => prep('x.md', '---\ntype: yes\n---\n'))).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(codeOf(() => prep('x.md', '---\ntype: "yes"\n---\n'))).toBeUndefined();
  });

  it('refuses a given document_id that is not a canonical UUIDv7, and a non-mapping octx', () => {
    expect(codeOf(() => prep('x.md', '---\noctx:\n  document_id: 019C1234-5678-7ABC-8DEF-0123456789AB\n---\n'))).toBe('OCTX_ID_INVALID');
    expect(codeOf(() => prep('x.md', '---\noctx:\n  document_id: 9b2f6c1e-8a4d-4c3b-9e2f-1a2b3c4d5e6f\n---\n'))).toBe('OCTX_ID_INVALID');
    expect(codeOf(() => prep('x.md', '---\noctx: abc\n---\n'))).toBe('OCTX_DOCUMENT_INVALID');
  });
});

describe('document paths', () => {
  it.each([['guide.md'], ['a/b/c.md'], ['中文/指南.md'], ['é.md']])('accepts %s', (p) => {
    expect(prep(p, '# T\n').path).toBe(`knowledge/${p}`);
  });

  it('normalises NFD input to NFC', () => {
    expect(prep('e\u0301.md', '# T\n').path).toBe('knowledge/\u00e9.md');
  });

  it.each([['../x.md'], ['/abs.md'], ['a//b.md'], ['./a.md'], ['a/./b.md'], ['a\\b.md'], ['a\0.md'], ['C:/x.md'], [''], ['a.MD'], ['a.txt'], ['.md'], ['a/.md']])(
    'refuses %j',
    (p) => {
      expect(codeOf(() => prep(p, '# T\n'))).toBe('OCTX_PATH_INVALID');
    },
  );

  it('refuses a path that cannot be a ZIP entry name (over 65,535 UTF-8 bytes with knowledge/) when it is added', () => {
    const fits = `${'a'.repeat(0xffff - 'knowledge/'.length - 3)}.md`;
    expect(prep(fits, '# T\n').path).toHaveLength(0xffff);
    expect(codeOf(() => prep(`a${fits}`, '# T\n'))).toBe('OCTX_PATH_INVALID');
    // Three UTF-8 bytes per character count, not UTF-16 units.
    expect(codeOf(() => prep(`${'中'.repeat(22_000)}.md`, '# T\n'))).toBe('OCTX_PATH_INVALID');
  });
});

describe('reserved index.md and log.md', () => {
  it('accepts OKF-shaped reserved files and gives them no id', () => {
    const index = prep('index.md', '---\nokf_version: "0.1"\n---\n# Index\n\n* [Guide](guide.md) - the guide\n');
    expect(index.kind).toBe('reserved');
    expect(index.documentId).toBeUndefined();
    expect(prep('sub/index.md', '# Sub\n\n- [A](a.md)\n').kind).toBe('reserved');
    expect(prep('log.md', '# Log\n\n## 2026-07-12\n- **Update** more\n\n## 2026-07-01\n* first\n').kind).toBe('reserved');
  });

  it.each([
    ['nested index.md with frontmatter', 'sub/index.md', '---\nokf_version: "0.1"\n---\n# Sub\n\n- [A](a.md)\n'],
    ['root index.md with another key', 'index.md', '---\ntitle: x\n---\n# I\n\n- [A](a.md)\n'],
    ['index.md without a link list', 'index.md', '# Index\n\nJust text.\n'],
    ['index.md without an H1', 'index.md', '- [A](a.md)\n'],
    ['log.md oldest first', 'log.md', '# Log\n\n## 2026-07-01\n- a\n\n## 2026-07-12\n- b\n'],
    ['log.md with an empty date group', 'log.md', '# Log\n\n## 2026-07-12\n\n## 2026-07-01\n- a\n'],
    ['log.md without date headings', 'log.md', '# Log\n\n- a\n'],
  ])('refuses %s', (_name, path, text) => {
    expect(codeOf(() => prep(path, text))).toBe('OCTX_OKF_RESERVED_INVALID');
  });
});

describe('PackageBuilder.addDocument', () => {
  const builder = () => new PackageBuilder({ asset: { name: 'T' }, release: { version: '1.0.0' } });

  it('returns the builder and exposes document ids by path', async () => {
    const b = builder();
    expect(b.addDocument({ path: 'a.md', markdown: '# A\n' })).toBe(b);
    expect(isUuidV7(b.documentId('a.md'))).toBe(true);
    expect(b.documentId('knowledge/a.md')).toBe(b.documentId('a.md'));
    expect(codeOf(() => b.documentId('missing.md'))).toBe('OCTX_PATH_INVALID');
    await b.dispose();
  });

  it('refuses duplicate paths after NFC normalisation and duplicate document ids', async () => {
    const b = builder().addDocument({ path: '\u00e9.md', markdown: '# A\n' });
    expect(codeOf(() => b.addDocument({ path: 'e\u0301.md', markdown: '# B\n' }))).toBe('OCTX_FILE_PATH_DUPLICATE');
    b.addDocument({ path: 'x.md', markdown: `---\noctx:\n  document_id: ${ID}\n---\n` });
    expect(codeOf(() => b.addDocument({ path: 'y.md', markdown: `---\noctx:\n  document_id: ${ID}\n---\n` }))).toBe('OCTX_ID_DUPLICATE');
    await b.dispose();
  });

  it('refuses a document id equal to the asset id (one id space)', async () => {
    const b = new PackageBuilder({ asset: { name: 'T', id: ID } });
    const e = (() => {
      try {
        b.addDocument({ path: 'x.md', markdown: `---\noctx:\n  document_id: ${ID}\n---\n` });
      } catch (err) {
        return err as OctxError;
      }
      return undefined;
    })();
    expect(e?.code).toBe('OCTX_ID_DUPLICATE');
    expect(e?.issues[0]?.recordId).toBe(ID);
    expect(e?.issues[0]?.field).toBe('octx.document_id');
    await b.dispose();
  });
});

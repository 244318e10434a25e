/**
 * The generator syntaxes the docs-site loader converts, at their edges: MkDocs blocks
 * (admonitions, details, tabs) and Docusaurus admonitions are converted outside fenced code only,
 * with every other byte kept; what is not converted is counted; Docusaurus doc ids and sidebars
 * are read as Docusaurus reads them.
 */
import { describe, expect, it } from 'vitest';
import { convertAdmonitions, docusaurusDocId, readSidebars } from '../../src/builder/docs-site/docusaurus.js';
import { convertMkdocsBlocks } from '../../src/builder/docs-site/mkdocs-blocks.js';

describe('MkDocs blocks', () => {
  it('an admonition becomes a label line and its dedented content; the block ends at the first line indented less', () => {
    const r = convertMkdocsBlocks('Intro.\n\n!!! note inline end "Heads up"\n    First line\n    second line.\n\n        indented code stays code\n\nAfter.\n');
    expect(r.text).toBe('Intro.\n\n**Note: Heads up**\n\nFirst line\nsecond line.\n\n    indented code stays code\n\nAfter.\n');
    expect(r).toMatchObject({ admonitions: 1, details: 0, tabs: 0, snippets: 0 });
  });

  it('no title, an empty title, ???+ details, tabs indented with a tab; CRLF line ends are kept', () => {
    const r = convertMkdocsBlocks('!!! warning\r\n    Careful.\r\n\r\n!!! info ""\r\n    Quiet.\r\n\r\n???+ tip "Open"\r\n\tShown.\r\n\r\n=== "A"\r\n\tTab A.\r\n');
    expect(r.text).toBe('**Warning**\r\n\r\nCareful.\r\n\r\n**Info**\r\n\r\nQuiet.\r\n\r\n**Tip: Open**\r\n\r\nShown.\r\n\r\n**A**\r\n\r\nTab A.\r\n');
    expect(r).toMatchObject({ admonitions: 2, details: 1, tabs: 1 });
  });

  it('markers and snippets inside fenced code are code; a page without blocks keeps its text; snippets are counted', () => {
    const fenced = '```md\n!!! note\n    not an admonition\n--8<-- "x.md"\n```\n';
    expect(convertMkdocsBlocks(fenced)).toEqual({ text: fenced, admonitions: 0, details: 0, tabs: 0, snippets: 0 });
    const snippet = 'Text.\n\n--8<-- "includes/abbr.md"\n';
    expect(convertMkdocsBlocks(snippet)).toEqual({ text: snippet, admonitions: 0, details: 0, tabs: 0, snippets: 1 });
  });
});

describe('Docusaurus admonitions', () => {
  it('converts admonition directives only: code fences, other container directives and Docusaurus 2 titles are kept and counted', () => {
    const body = [
      ':::tip[Use **this**]',
      '',
      'Tip text.',
      '',
      ':::',
      '',
      '```md',
      ':::note',
      'in code',
      ':::',
      '```',
      '',
      ':::details[More]',
      'Hidden.',
      ':::',
      '',
      ':::caution Old title',
      '',
      'Old syntax.',
      '',
      ':::',
      '',
      '- item',
      '',
      '  :::info',
      '  In a list.',
      '  :::',
      '',
    ].join('\n');
    const r = convertAdmonitions(body);
    expect(r.text).toBe(
      [
        '**Tip: Use **this****',
        '',
        'Tip text.',
        '',
        '',
        '```md',
        ':::note',
        'in code',
        ':::',
        '```',
        '',
        ':::details[More]',
        'Hidden.',
        ':::',
        '',
        ':::caution Old title',
        '',
        'Old syntax.',
        '',
        ':::',
        '',
        '- item',
        '',
        '  **Info**',
        '  In a list.',
        '',
      ].join('\n'),
    );
    expect(r).toMatchObject({ converted: 2, others: { details: 1 }, unread: 1 });
  });

  it('doc ids: the path without extension and number prefixes, the last segment replaced by a frontmatter id', () => {
    expect(docusaurusDocId('01-guides/02-intro.md', undefined)).toBe('guides/intro');
    expect(docusaurusDocId('guides/intro.mdx', 'start')).toBe('guides/start');
    expect(docusaurusDocId('blog/2024-05-01-launch.md', undefined)).toBe('blog/2024-05-01-launch');
  });

  it('sidebars: string items, docs with labels, categories (also as { Label: [...] }), links; an unknown doc id is listed without a link', () => {
    const page = (id: string) => (id === 'a' ? { path: 'a.md', title: 'A page' } : id === 'b/c' ? { path: 'b/c.mdx', title: 'C' } : undefined);
    const r = readSidebars({ main: ['a', { 'Group B': ['b/c', { type: 'doc', id: 'missing', label: 'Gone' }] }, { type: 'link', label: 'Site', href: 'https://x' }] }, page);
    expect(r).toEqual({
      ok: true,
      sidebars: [
        {
          id: 'main',
          items: [{ title: 'A page', path: 'a.md' }, { title: 'Group B', children: [{ title: 'C', path: 'b/c.mdx' }, { title: 'Gone' }] }, { title: 'Site' }],
        },
      ],
    });
    expect(readSidebars({ main: [{ type: 'weird' }] }, page)).toEqual({ ok: false, reason: 'an item of type "weird"' });
  });
});

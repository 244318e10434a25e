/** The local link targets the dangling-link count reads from a Markdown body (issue 22, item 4). */
import { describe, expect, it } from 'vitest';
import { linkTargets, resolveLocalLink } from '../../src/knowledge/local-links.js';
import { indexProseLine } from '../../src/knowledge/reserved.js';

describe('linkTargets / resolveLocalLink', () => {
  it('reads inline links, images with titles, <angle> targets, reference definitions and <img src>, not code', () => {
    const body = [
      'See [setup](setup.md) and ![diagram](img/a%20b.png "The diagram").',
      '[ref]: ../assets/logo.svg',
      'A [spaced](<my file.md>) link and <img alt="x" src="shot.png"> inline.',
      'Code: `![not](code.png)`',
      '```md',
      '![not](fenced.png)',
      '```',
      '[web](https://example.com/x.png) [mail](mailto:a@b.c) [top](#top) [proto](//cdn/x.png)',
    ].join('\n');
    expect(linkTargets(body)).toEqual([
      'setup.md',
      'img/a%20b.png',
      '../assets/logo.svg',
      'my file.md',
      'shot.png',
      'https://example.com/x.png',
      'mailto:a@b.c',
      '#top',
      '//cdn/x.png',
    ]);
    const resolved = linkTargets(body).map((t) => resolveLocalLink('guide/page.md', t));
    expect(resolved).toEqual(['guide/setup.md', 'guide/img/a b.png', 'assets/logo.svg', 'guide/my file.md', 'guide/shot.png', undefined, undefined, undefined, undefined]);
    expect(resolveLocalLink('guide/page.md', '/public/x.png?v=2#frag')).toBe('public/x.png');
    expect(resolveLocalLink('page.md', '../outside.png')).toBeUndefined();
  });
});

describe('indexProseLine', () => {
  it('a pure index (headings, link items, continuation lines, comments) has none; prose, code or a table is named by line', () => {
    expect(indexProseLine('# Docs\n\n<!-- nav -->\n## Guides\n\n* [Setup](setup.md) - install\n  continued here\n- [Deploy](deploy.md)\n')).toBeUndefined();
    expect(indexProseLine('# Docs\n\nWelcome to the docs.\n\n* [Setup](setup.md)\n')).toEqual({ line: 3, text: 'Welcome to the docs.' });
    expect(indexProseLine('# Docs\n* [Setup](setup.md)\n```sh\nnpm i\n```\n')).toEqual({ line: 3, text: '```sh' });
    expect(indexProseLine('---\nokf_version: "0.1"\n---\n# Docs\n| a | b |\n')).toEqual({ line: 5, text: '| a | b |' });
  });
});

/**
 * `octx-export/mdx`: MDX → Markdown as folder builds read `.mdx` pages (import/export lines and
 * `{expressions}` removed, components unwrapped to their Markdown text, every other byte kept).
 * A sub-path of its own because the MDX parser (micromark's MDX extensions and acorn) is large:
 * importing the root `octx-export` loads none of it, and a folder build loads it only when it
 * meets an `.mdx` page.
 * @module
 */
export { mdxToMarkdown, type MdxConversion, type MdxChangeCounts } from './mdx-to-markdown.js';

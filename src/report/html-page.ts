/**
 * The report's HTML: one self-contained file. The page's data is JSON inside a
 * `<script type="application/json">` element (a data block: never run), with `<`, `>`, `&` and
 * U+2028/U+2029 escaped, so no string of the package can end the element or start markup; the
 * page script reads it with `JSON.parse` and puts every string into the page as text. The
 * Content-Security-Policy allows nothing remote at all (`default-src 'none'`) and only the two
 * inline blocks whose SHA-256 it names: the style and the page script — not `unsafe-inline`, so
 * even markup that slipped in could run no script of its own.
 */
import { createHash } from 'node:crypto';
import { DATA_ELEMENT_ID, type ReportData } from './report-data.js';
import { PAGE_STYLE } from './page-style.js';

/** JSON for a data block: the characters that could end it or start markup become `\u` escapes. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Text for an HTML text node or attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `'sha256-…'` of an inline block, for the CSP. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of a page whose inline script and style are `script` and `style`. */
export function contentSecurityPolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${cspHash(script)}`,
    `style-src ${cspHash(style)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The whole page for `data`, with the bundled page `script` inlined. */
export function reportHtml(data: ReportData, script: string): string {
  const title = `${data.asset.name ?? data.packageName}${data.asset.version !== null ? ` ${data.asset.version}` : ''} — octx report`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script, PAGE_STYLE))}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="${escapeHtml(data.generator)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    '<noscript><p>This report draws itself with JavaScript: open it in a browser with scripts enabled.</p></noscript>',
    `<script type="application/json" id="${DATA_ELEMENT_ID}">${jsonForScript(data)}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Python's `str.isspace()` and `str.strip()`: what SAG calls blank and what it strips. Python's set
 * (`python-unicode-data.ts`) includes `\x1c`–`\x1f` and `\x85`, which `String.prototype.trim`
 * keeps, and leaves out `\ufeff`, which `trim` removes. In `model/`: the knowledge layer reads a
 * title as a Python reader does too.
 */
import { isPythonWhitespace } from './python-unicode.js';

/** `s.isspace()`: at least one character, all white space. */
export function pythonIsSpace(s: string): boolean {
  if (s.length === 0) return false;
  for (const c of s) if (!isPythonWhitespace(c.codePointAt(0)!)) return false;
  return true;
}

/** `s.strip()` (no argument). */
export function pythonStrip(s: string): string {
  let start = 0;
  while (start < s.length && isPythonWhitespace(s.charCodeAt(start))) start++;
  let end = s.length;
  while (end > start && isPythonWhitespace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** `s.lstrip()` (no argument). */
export function pythonLstrip(s: string): string {
  let start = 0;
  while (start < s.length && isPythonWhitespace(s.charCodeAt(start))) start++;
  return s.slice(start);
}

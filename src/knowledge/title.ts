import { pythonStrip } from '../model/python-strip.js';

/**
 * The title the reference gives a document without one: the first level-one ATX heading outside
 * fenced code blocks, else the file stem with `-` and `_` turned into spaces. The heading is a
 * slice of `body`: a caller that keeps the title copies it (`detachedString`).
 */
export function deriveTitle(body: string, fileName: string): string {
  let fence: string | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      const marker = f[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (h && h[1]!.trim() !== '') return h[1]!.trim();
  }
  const stem = fileName.replace(/\.md$/, '').replace(/[-_]+/g, ' ').trim();
  return stem === '' ? fileName : stem;
}

// Python's str.splitlines() breaks lines at these (and at CR LF as one break).
// eslint-disable-next-line no-control-regex
const PYTHON_LINE_BREAKS = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Whether a frontmatter `title` value is a string that Python's `strip()` leaves non-empty. */
export function isPythonTitle(value: unknown): value is string {
  return typeof value === 'string' && pythonStrip(value) !== '';
}

/**
 * The title a Python reader takes when the frontmatter has no usable one (SAG's `_raw_title`):
 * the first line of `body` (split as `str.splitlines()` splits) that starts with `# ` and has
 * text after it, stripped; else the file stem of `packagePath` (`Path(path).stem`).
 */
export function pythonHeadingTitle(body: string, packagePath: string): string {
  for (const line of body.split(PYTHON_LINE_BREAKS)) {
    if (line.startsWith('# ')) {
      const text = pythonStrip(line.slice(2));
      if (text !== '') return text;
    }
  }
  const name = packagePath.slice(packagePath.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

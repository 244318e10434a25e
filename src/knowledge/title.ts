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

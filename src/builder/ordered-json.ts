/**
 * A JSON text already accepted by `parseStrictJson`, read again in order: objects as their
 * entries in the order written (a JavaScript object moves integer-like keys first) and numbers as
 * the text written (`1.0` is a float for Python's `json`, `1` an integer; `JSON.parse` gives the
 * same number for both). Used to convert JSON frontmatter to YAML without changing a value.
 */

/** A JSON value with its order and number spelling kept. */
export type OrderedJson = null | boolean | string | { readonly number: string } | readonly OrderedJson[] | { readonly entries: readonly (readonly [string, OrderedJson])[] };

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const WHITE = /[ \t\r\n]*/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;

/** Reads `text`, which must be valid JSON (it is not checked again). */
export function readOrderedJson(text: string): OrderedJson {
  let at = 0;
  const skip = (): void => {
    WHITE.lastIndex = at;
    WHITE.exec(text);
    at = WHITE.lastIndex;
  };
  const token = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const m = pattern.exec(text)!;
    at = pattern.lastIndex;
    return m[0];
  };
  const value = (): OrderedJson => {
    skip();
    const c = text[at];
    if (c === '{') {
      at++;
      const entries: [string, OrderedJson][] = [];
      skip();
      while (text[at] !== '}') {
        skip();
        const key = JSON.parse(token(STRING)) as string;
        skip();
        at++; // ':'
        entries.push([key, value()]);
        skip();
        if (text[at] === ',') at++;
        skip();
      }
      at++;
      return { entries };
    }
    if (c === '[') {
      at++;
      const items: OrderedJson[] = [];
      skip();
      while (text[at] !== ']') {
        items.push(value());
        skip();
        if (text[at] === ',') at++;
        skip();
      }
      at++;
      return items;
    }
    if (c === '"') return JSON.parse(token(STRING)) as string;
    if (text.startsWith('true', at)) return ((at += 4), true);
    if (text.startsWith('false', at)) return ((at += 5), false);
    if (text.startsWith('null', at)) return ((at += 4), null);
    return { number: token(NUMBER) };
  };
  return value();
}

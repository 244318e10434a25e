/**
 * `s` as a string of its own, sharing no memory with the text it was cut from.
 *
 * A substring, a `split` piece or a regular-expression match is, in V8, a slice that keeps its
 * whole parent string alive. A builder keeps each document's title and id for the export: kept
 * as slices, they kept every added document's Markdown in memory until the export (hundreds of
 * MiB on a large corpus; see BENCHMARKS.md). Prefixing and slicing makes V8 copy the characters
 * into a new flat string; the result is equal to `s`.
 */
export function detachedString(s: string): string {
  return ` ${s}`.slice(1);
}

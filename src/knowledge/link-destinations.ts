/**
 * Where a Markdown body's link destinations are, to the character, as CommonMark reads them
 * (micromark's tokens): inline links and images (`[t](a.md)`, `![alt](<a b.png>)`) and reference
 * definitions (`[id]: a.md`) — never text in code spans or fenced code. Rewriting a destination
 * in place keeps every other byte of the body.
 */
import { parse, postprocess, preprocess } from 'micromark';
import { detachedString } from '../model/detached-string.js';

/** One link destination: its range in the body (without `<…>`), its text and line (1-based). */
export interface LinkDestination {
  readonly start: number;
  readonly end: number;
  readonly target: string;
  readonly line: number;
}

const DESTINATIONS = new Set(['resourceDestinationString', 'definitionDestinationString']);

/** The link destinations of a Markdown body, in order. */
export function linkDestinations(body: string): LinkDestination[] {
  const events = postprocess(
    parse()
      .document()
      .write(preprocess()(body, undefined, true)),
  );
  const out: LinkDestination[] = [];
  for (const [kind, token] of events) {
    if (kind !== 'enter' || !DESTINATIONS.has(token.type)) continue;
    const start = token.start.offset;
    const end = token.end.offset;
    out.push({ start, end, target: detachedString(body.slice(start, end)), line: token.start.line });
  }
  return out;
}

/** A destination rewritten by {@link rewriteLinkDestinations}. */
export interface RewrittenLink {
  /** The line of the link in the body it was found in (1-based). */
  readonly line: number;
  readonly from: string;
  readonly to: string;
}

/**
 * Rewrites the destinations `rewrite` gives a new text for (`undefined`: kept as written).
 * Returns the new body and what was rewritten, in order.
 */
export function rewriteLinkDestinations(body: string, rewrite: (target: string) => string | undefined): { body: string; rewritten: RewrittenLink[] } {
  const rewritten: RewrittenLink[] = [];
  let out = '';
  let at = 0;
  for (const d of linkDestinations(body)) {
    const to = rewrite(d.target);
    if (to === undefined || to === d.target) continue;
    out += body.slice(at, d.start) + to;
    at = d.end;
    rewritten.push({ line: d.line, from: d.target, to: detachedString(to) });
  }
  return rewritten.length === 0 ? { body, rewritten } : { body: out + body.slice(at), rewritten };
}

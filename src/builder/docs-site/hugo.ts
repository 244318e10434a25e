/**
 * Hugo's conventions in a page's text: the `ref` and `relref` shortcodes (`{{< ref "install.md" >}}`,
 * `{{% relref path="docs/api#auth" %}}`) become relative links to the page they name, in the
 * package; every other shortcode is counted by name (it is a template call this cannot run) and
 * left as written. As in Hugo, shortcodes are read anywhere in the text (code blocks too), and
 * the escaped form `{{</* … *\/>}}` is the literal `{{< … >}}`.
 */

/** What {@link applyHugoShortcodes} did to one page. */
export interface HugoShortcodes {
  readonly text: string;
  /** `ref`/`relref` shortcodes turned into links. */
  readonly resolved: number;
  /** `ref`/`relref` shortcodes naming no page of the tree, kept as written. */
  readonly unresolved: readonly string[];
  /** Other shortcodes, by name, kept as written. */
  readonly others: Readonly<Record<string, number>>;
}

// `{{<` or `{{%`, an optional escape `/*`, the name, the arguments, and the matching close.
const SHORTCODE = /\{\{([<%])\s*(\/\*)?\s*(\/?[\w.-]+)([^}]*?)\s*(\*\/)?\s*([>%])\}\}/g;

/** The page path a `ref` names: its first positional argument or `path=`, without the fragment. */
function refArgument(args: string): { path: string; fragment: string } | undefined {
  const named = /\bpath\s*=\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)/.exec(args);
  const positional = /^\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`|([^\s"'`=]+)(?=\s|$))/.exec(args);
  const raw = named ? (named[1] ?? named[2] ?? named[3]) : positional ? (positional[1] ?? positional[2] ?? positional[3] ?? positional[4]) : undefined;
  if (raw === undefined) return undefined;
  const hash = raw.indexOf('#');
  return hash < 0 ? { path: raw, fragment: '' } : { path: raw.slice(0, hash), fragment: raw.slice(hash) };
}

/**
 * Resolves a page's `ref`/`relref` shortcodes and counts the others.
 * @param resolve the relative link (from the page, in the package) to the page `path` names, or
 *   `undefined` when it names none; `''` for the page itself (a `#fragment`-only reference)
 */
export function applyHugoShortcodes(text: string, resolve: (path: string) => string | undefined): HugoShortcodes {
  let resolved = 0;
  const unresolved: string[] = [];
  const others: Record<string, number> = {};
  const out = text.replace(SHORTCODE, (whole: string, open: string, escape: string | undefined, name: string, args: string, unescape: string | undefined) => {
    if (escape !== undefined && unescape !== undefined) return whole.replace(/\{\{([<%])\s*\/\*/, '{{$1').replace(/\*\/\s*([>%])\}\}$/, '$1}}');
    if (name.startsWith('/')) return whole; // a closing tag: counted with its opening one
    if (name !== 'ref' && name !== 'relref') {
      others[name] = (others[name] ?? 0) + 1;
      return whole;
    }
    const ref = refArgument(args);
    const target = ref === undefined ? undefined : ref.path === '' ? '' : resolve(ref.path);
    if (ref === undefined || target === undefined) {
      unresolved.push(whole);
      return whole;
    }
    resolved++;
    return `${target}${ref.fragment}` || '#';
  });
  return { text: out, resolved, unresolved, others };
}

/**
 * How PyYAML's `safe_load` (YAML 1.1, the reference reader and SAG's) types one scalar: its
 * implicit resolvers (`yaml/resolver.py`, keyed by the scalar's first character) and the
 * constructors of `SafeConstructor` (`yaml/constructor.py`), ported rule for rule. The frontmatter
 * reader compares this reading with the YAML 1.2 one of every scalar, so a value the two read
 * differently is never called valid.
 */

/** A scalar as PyYAML constructs it. `error`: PyYAML refuses the document (or crashes on it). */
export type PyYamlScalar =
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'timestamp'; readonly value: string }
  | { readonly kind: 'error'; readonly reason: string };

// resolver.py, verbatim (re.X patterns with their spaces removed).
const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const MERGE = /^(?:<<)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;
const VALUE = /^(?:=)$/;
const YAML_TAG = /^(?:!|&|\*)$/;

type Tag = 'bool' | 'float' | 'int' | 'merge' | 'null' | 'timestamp' | 'value' | 'yaml';

/** Each resolver with the first characters it is registered for, in PyYAML's registration order. */
const RESOLVERS: readonly (readonly [Tag, RegExp, string])[] = [
  ['bool', BOOL, 'yYnNtTfFoO'],
  ['float', FLOAT, '-+0123456789.'],
  ['int', INT, '-+0123456789'],
  ['merge', MERGE, '<'],
  ['null', NULL, '~nN'],
  ['timestamp', TIMESTAMP, '0123456789'],
  ['value', VALUE, '='],
  ['yaml', YAML_TAG, '!&*'],
];

/** The tag PyYAML's resolver gives a plain scalar of this text, or `str`. */
export function pyyamlResolve(text: string): Tag | 'str' {
  // The empty scalar is keyed under '' in PyYAML (only the null resolver is registered there).
  if (text === '') return 'null';
  const first = text[0]!;
  for (const [tag, pattern, firsts] of RESOLVERS) if (firsts.includes(first) && pattern.test(text)) return tag;
  return 'str';
}

/** `SafeConstructor.construct_yaml_int` on a text its resolver accepted (Python's `int()` on ASCII digits). */
function constructInt(text: string): PyYamlScalar {
  let value = text.replace(/_/g, '');
  let sign = 1n;
  if (value[0] === '-') sign = -1n;
  if (value[0] === '+' || value[0] === '-') value = value.slice(1);
  try {
    if (value === '0') return { kind: 'int', value: 0n };
    if (value.startsWith('0b')) return { kind: 'int', value: sign * bigintOf('0b', value.slice(2)) };
    if (value.startsWith('0x')) return { kind: 'int', value: sign * bigintOf('0x', value.slice(2)) };
    if (value[0] === '0') return { kind: 'int', value: sign * bigintOf('0o', value) };
    if (value.includes(':')) {
      let total = 0n;
      let base = 1n;
      for (const part of value.split(':').reverse()) {
        total += bigintOf('', part) * base;
        base *= 60n;
      }
      return { kind: 'int', value: sign * total };
    }
    return { kind: 'int', value: sign * bigintOf('', value) };
  } catch {
    // `0b_` passes the resolver and leaves nothing to convert: int('', 2) raises ValueError.
    return { kind: 'error', reason: `PyYAML cannot construct the integer ${JSON.stringify(text)} (ValueError)` };
  }
}

function bigintOf(prefix: string, digits: string): bigint {
  if (digits === '') throw new RangeError('no digits');
  return BigInt(prefix + digits);
}

/** `SafeConstructor.construct_yaml_float`, in the same double arithmetic. */
function constructFloat(text: string): number {
  let value = text.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (value[0] === '-') sign = -1;
  if (value[0] === '+' || value[0] === '-') value = value.slice(1);
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) {
    let total = 0;
    let base = 1;
    for (const part of value.split(':').reverse()) {
      total += Number(part) * base;
      base *= 60;
    }
    return sign * total;
  }
  return sign * Number(value);
}

/**
 * The value PyYAML's `safe_load` gives a plain (unquoted, untagged) scalar of this text: a string
 * unless one of its implicit resolvers claims the text. `<<` and `=` resolve to tags `SafeLoader`
 * cannot construct (as a value; `<<` as a key merges), so PyYAML refuses them.
 */
export function pyyamlPlainScalar(text: string): PyYamlScalar {
  switch (pyyamlResolve(text)) {
    case 'str':
      return { kind: 'str', value: text };
    case 'null':
      return { kind: 'null' };
    case 'bool':
      return { kind: 'bool', value: BOOL_VALUES[text.toLowerCase()]! };
    case 'int':
      return constructInt(text);
    case 'float':
      return { kind: 'float', value: constructFloat(text) };
    case 'timestamp':
      return { kind: 'timestamp', value: text };
    case 'merge':
      return { kind: 'error', reason: 'PyYAML reads a plain << as a merge key (it merges a mapping, and refuses anything else)' };
    case 'value':
      return { kind: 'error', reason: 'PyYAML has no constructor for a plain = (tag:yaml.org,2002:value)' };
    case 'yaml':
      return { kind: 'error', reason: 'PyYAML has no constructor for tag:yaml.org,2002:yaml' };
  }
}

const BOOL_VALUES: Readonly<Record<string, boolean>> = { yes: true, no: false, true: true, false: false, on: true, off: false };

/** What PyYAML's reading is, in words, for messages. */
export function describePyYaml(s: PyYamlScalar): string {
  switch (s.kind) {
    case 'str':
      return `the string ${JSON.stringify(s.value)}`;
    case 'int':
      return `the integer ${s.value}`;
    case 'float':
      return `the float ${Number.isNaN(s.value) ? 'nan' : String(s.value)}`;
    case 'bool':
      return s.value ? 'True' : 'False';
    case 'null':
      return 'None';
    case 'timestamp':
      return `a date/time (${s.value})`;
    case 'error':
      return `an error: ${s.reason}`;
  }
}

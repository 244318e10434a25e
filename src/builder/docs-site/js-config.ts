/**
 * Values read from a docs generator's JavaScript or TypeScript config file without running it:
 * the file is parsed with acorn (and its TypeScript plugin, for `config.mts` and
 * `docusaurus.config.ts`), and only literal values are taken — a string, or an object or array of
 * them. A config that computes a value (a function call, a variable from elsewhere) gives nothing
 * for it, and the caller falls back as if it were absent.
 */
import { Parser, type Node } from 'acorn';
import { tsPlugin } from '@sveltejs/acorn-typescript';

/** An ESTree node, loosely: the few shapes read here are checked field by field. */
type EsNode = Node & Record<string, unknown>;

let tsParser: typeof Parser | undefined;

/** The program of a config file's source, or `undefined` when it does not parse. */
export function parseConfigSource(source: string, typescript: boolean): EsNode | undefined {
  try {
    const parser = typescript ? (tsParser ??= Parser.extend(tsPlugin())) : Parser;
    return parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true }) as unknown as EsNode;
  } catch {
    return undefined;
  }
}

/** A literal value: a string, number or boolean literal, a template without expressions, or an object/array of them. */
export type Literal = string | number | boolean | null | readonly Literal[] | { readonly [key: string]: Literal };

/**
 * The literal value of a node (TypeScript `as`/`satisfies` unwrapped), or `undefined` when it is
 * computed. In an array or object a computed part is left out.
 * @param onComputed called with the line (1-based) of each computed part met, so a reader that
 *   needs every value (a sidebar) can refuse what it cannot read whole
 */
export function literalOf(node: unknown, onComputed?: (line: number) => void): Literal | undefined {
  const n = unwrapTs(node);
  if (n === undefined) return undefined;
  const computed = (): undefined => {
    onComputed?.((n.loc as { start: { line: number } } | undefined)?.start.line ?? 0);
    return undefined;
  };
  switch (n.type) {
    case 'Literal':
      return typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean' || n.value === null ? n.value : computed();
    case 'TemplateLiteral': {
      const quasis = n.quasis as { value: { cooked: string } }[];
      return (n.expressions as unknown[]).length === 0 ? quasis.map((q) => q.value.cooked).join('') : computed();
    }
    case 'ArrayExpression': {
      const out: Literal[] = [];
      for (const e of n.elements as unknown[]) {
        const v = literalOf(e, onComputed);
        if (v !== undefined) out.push(v);
      }
      return out;
    }
    case 'ObjectExpression': {
      const out: Record<string, Literal> = {};
      for (const p of n.properties as EsNode[]) {
        if (p.type !== 'Property' || p.computed) {
          onComputed?.((p.loc as { start: { line: number } } | undefined)?.start.line ?? 0);
          continue;
        }
        const key = propertyKey(p);
        const v = literalOf(p.value, onComputed);
        if (key !== undefined && v !== undefined) out[key] = v;
      }
      return out;
    }
    default:
      return computed();
  }
}

function propertyKey(p: EsNode): string | undefined {
  const key = p.key as EsNode;
  if (key.type === 'Identifier') return key.name as string;
  if (key.type === 'Literal' && typeof key.value === 'string') return key.value;
  return undefined;
}

function unwrapTs(node: unknown): EsNode | undefined {
  let n = node as EsNode | undefined | null;
  while (n && (n.type === 'TSAsExpression' || n.type === 'TSSatisfiesExpression' || n.type === 'TSNonNullExpression' || n.type === 'ParenthesizedExpression')) {
    n = n.expression as EsNode;
  }
  return n ?? undefined;
}

/**
 * The config object a file exports: `export default {…}`, `export default defineConfig({…})`,
 * `export default config` with `const config = {…}`, or `module.exports = …` — calls unwrapped
 * to their first object argument.
 */
export function exportedObject(program: EsNode): EsNode | undefined {
  const body = program.body as EsNode[];
  const declared = new Map<string, EsNode>();
  for (const statement of body) {
    const decl = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as EsNode | null) : statement;
    if (decl?.type !== 'VariableDeclaration') continue;
    for (const d of decl.declarations as EsNode[]) {
      const id = d.id as EsNode;
      if (id.type === 'Identifier' && d.init) declared.set(id.name as string, d.init as EsNode);
    }
  }
  const resolve = (node: unknown, depth = 0): EsNode | undefined => {
    const n = unwrapTs(node);
    if (!n || depth > 8) return undefined;
    if (n.type === 'ObjectExpression') return n;
    if (n.type === 'Identifier') return resolve(declared.get(n.name as string), depth + 1);
    if (n.type === 'CallExpression') {
      for (const a of n.arguments as EsNode[]) {
        const found = resolve(a, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const statement of body) {
    if (statement.type === 'ExportDefaultDeclaration') return resolve(statement.declaration);
    if (statement.type === 'ExpressionStatement') {
      const e = statement.expression as EsNode;
      const left = e.type === 'AssignmentExpression' ? (e.left as EsNode) : undefined;
      if (left?.type === 'MemberExpression' && (left.object as EsNode).name === 'module' && (left.property as EsNode).name === 'exports') return resolve(e.right);
    }
  }
  return undefined;
}

/** The literal value of an object expression's property, or `undefined`. */
export function propertyOf(object: EsNode | undefined, name: string): Literal | undefined {
  if (!object) return undefined;
  for (const p of object.properties as EsNode[]) if (p.type === 'Property' && !p.computed && propertyKey(p) === name) return literalOf(p.value);
  return undefined;
}

/** The first object argument of the first call to `callee` anywhere in the program (`starlight({…})`). */
export function firstCallArgument(program: EsNode, callee: string): EsNode | undefined {
  let found: EsNode | undefined;
  const visit = (node: unknown): void => {
    if (found || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    const n = node as EsNode;
    if (n.type === 'CallExpression' && (n.callee as EsNode).type === 'Identifier' && (n.callee as EsNode).name === callee) {
      const arg = unwrapTs((n.arguments as unknown[])[0]);
      if (arg?.type === 'ObjectExpression') {
        found = arg;
        return;
      }
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'type' && k !== 'start' && k !== 'end') visit(v);
  };
  visit(program);
  return found;
}

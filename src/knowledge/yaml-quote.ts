/**
 * A YAML double-quoted scalar that PyYAML (YAML 1.1) and YAML 1.2 readers both read back as the
 * same string: JSON escaping, plus `\uXXXX` for what PyYAML refuses raw (DEL, C1 controls,
 * U+FFFE/U+FFFF) and for the characters YAML 1.1 reads as line breaks and YAML 1.2 does not
 * (U+0085, U+2028, U+2029: raw, PyYAML folds the spaces round them or ends the document there),
 * and U+FEFF, which a YAML stream may take for a byte order mark.
 */
export function yamlQuote(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

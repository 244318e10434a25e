/** Reading the examples out of a command's `--help` text, and splitting them like a shell. */

/** The example lines of a help text (the indented lines under `Examples:`). */
export function helpExamples(help: string): string[] {
  const at = help.indexOf('\nExamples:\n');
  if (at < 0) return [];
  return help
    .slice(at + '\nExamples:\n'.length)
    .split('\n')
    .filter((l) => l.startsWith('  octx-export '))
    .map((l) => l.trim());
}

/** Splits a command line as a POSIX shell would for these examples (double quotes, backslash escapes inside them). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') {
      current ??= '';
      for (i++; i < line.length && line[i] !== '"'; i++) current += line[i] === '\\' ? line[++i]! : line[i]!;
    } else if (c === ' ') {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else current = (current ?? '') + c;
  }
  if (current !== undefined) words.push(current);
  return words;
}

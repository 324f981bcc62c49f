/**
 * A glob pattern as a regular expression over `/`-separated relative paths: `**` any number of
 * directories, `*` and `?` within one name, `{a,b}` alternatives, `[abc]` classes. A pattern
 * without `/` matches the file name at any depth (`*.ts` is `**\/*.ts`), as most agents expect.
 */
export function globToRegExp(pattern: string): RegExp {
  const source = pattern.includes('/') ? pattern.replace(/^\.\//, '') : `**/${pattern}`;
  let out = '';
  let inClass = false;
  let braces = 0;
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (inClass) {
      out += char === '\\' ? '\\\\' : char;
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '*') {
      if (source[index + 1] === '*') {
        const slashAfter = source[index + 2] === '/';
        out += slashAfter ? '(?:[^/]*/)*' : '.*';
        index += slashAfter ? 2 : 1;
      } else {
        out += '[^/]*';
      }
    } else if (char === '?') out += '[^/]';
    else if (char === '[') {
      inClass = true;
      if (source[index + 1] === '!') {
        index++;
        out += '[^';
      } else out += '[';
    } else if (char === '{') {
      braces++;
      out += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (char === ',' && braces > 0) out += '|';
    else out += /[.+^$()|\\]/.test(char) ? `\\${char}` : char;
  }
  return new RegExp(`^${out}$`);
}

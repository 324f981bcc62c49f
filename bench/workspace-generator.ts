/**
 * The generated workspaces the scan, capture and fork benches share: nested dirs, 1–20 KB
 * source-like text files, 2% binaries, a .gitignore with an ignored node_modules/, and mtimes moved
 * into the past like a checked-out project nobody touched in the last seconds.
 */
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WORDS = 'const let function return import export async await class interface type string number value result error workspace checkpoint'.split(' ');

/** A realistic tree: nested dirs, 1–20 KB text files, a few binaries, a .gitignore with an ignored dir. */
export function generateWorkspace(dir: string, fileCount: number): string[] {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const paths: string[] = [];
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n*.log\n');
  mkdirSync(join(dir, 'node_modules/dep'), { recursive: true });
  for (let index = 0; index < 200; index++) writeFileSync(join(dir, `node_modules/dep/m${index}.js`), 'module.exports = 1\n');
  for (let index = 0; index < fileCount; index++) {
    const depth = 1 + Math.floor(random() * 4);
    const parts = Array.from({ length: depth }, (_, level) => `d${level}_${Math.floor(random() * 8)}`);
    const relative = `src/${parts.join('/')}/f${index}.${index % 50 === 0 ? 'bin' : 'ts'}`;
    mkdirSync(join(dir, relative, '..'), { recursive: true });
    const size = 1024 + Math.floor(random() * 19 * 1024);
    let content: Buffer;
    if (index % 50 === 0) {
      content = Buffer.alloc(size);
      for (let byte = 0; byte < size; byte++) content[byte] = Math.floor(random() * 256);
    } else {
      const lines: string[] = [];
      let length = 0;
      while (length < size) {
        const line = `${WORDS[index % WORDS.length]} ${WORDS[(length >> 3) % WORDS.length]}_${length} = ${index * 31 + length};`;
        lines.push(line);
        length += line.length + 1;
      }
      content = Buffer.from(lines.join('\n').slice(0, size));
    }
    writeFileSync(join(dir, relative), content);
    paths.push(relative);
  }
  return paths;
}

/**
 * Moves every mtime into the past, files and directories alike, as for a checked-out project nobody
 * touched in the last seconds (a directory's mtime is set after its entries, which would change it).
 */
export function backdate(dir: string): void {
  const past = (Date.now() - 3_600_000) / 1000;
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else utimesSync(path, past, past);
    }
    utimesSync(current, past, past);
  };
  walk(dir);
}

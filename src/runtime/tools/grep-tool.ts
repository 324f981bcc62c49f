import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { globToRegExp } from './glob-pattern.js';
import { defineTool, errorText, text } from './tool.js';
import { walkFiles } from './walk-files.js';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_SCANNED = 50_000;
const MAX_MATCHES = 200;

/** `grep`: lines of workspace files matching a regular expression; effect `none`. */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search workspace files for a JavaScript regular expression. Returns "path:line:text" lines (at most 200). Optional path (file or directory) and include (glob on file paths, e.g. "*.ts"). Binary files and files over 1 MiB are skipped.',
  effect: 'none',
  inputSchema: z.object({
    pattern: z.string().min(1),
    path: z.string().min(1).optional(),
    include: z.string().min(1).optional(),
    ignoreCase: z.boolean().optional(),
  }),
  async execute(input, context) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input.ignoreCase ? 'i' : '');
    } catch (error) {
      return errorText(`Invalid regular expression ${input.pattern}: ${(error as Error).message}`);
    }
    const target = context.workspace.resolve(input.path ?? '.');
    let files: string[];
    let truncated = false;
    try {
      if (statSync(target.realPath).isDirectory()) ({ files, truncated } = walkFiles(context.workspace, target.realPath, MAX_SCANNED));
      else files = [target.relativePath];
    } catch {
      return errorText(`${input.path} does not exist.`);
    }
    const include = input.include ? globToRegExp(input.include) : null;
    const root = context.workspace.primaryRoot.realDir;
    const matches: string[] = [];
    for (const file of files) {
      if (include && !include.test(file)) continue;
      const absolute = join(root, file);
      let content: Buffer;
      try {
        if (statSync(absolute).size > MAX_FILE_BYTES) continue;
        content = readFileSync(absolute);
      } catch {
        continue;
      }
      if (content.includes(0)) continue;
      const lines = content.toString('utf8').split('\n');
      for (let index = 0; index < lines.length && matches.length <= MAX_MATCHES; index++) {
        if (regex.test(lines[index]!)) matches.push(`${file}:${index + 1}:${lines[index]!.slice(0, 500)}`);
      }
      if (matches.length > MAX_MATCHES) break;
    }
    if (matches.length === 0) return text(`No matches for ${input.pattern}.`);
    const more = matches.length > MAX_MATCHES ? `\n(more matches; narrow the search)` : '';
    return text(`${matches.slice(0, MAX_MATCHES).join('\n')}${more}${truncated ? `\n(search stopped after ${MAX_SCANNED} files)` : ''}`);
  },
});

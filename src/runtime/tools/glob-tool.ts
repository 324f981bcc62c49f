import { statSync } from 'node:fs';
import { z } from 'zod';
import { globToRegExp } from './glob-pattern.js';
import { defineTool, errorText, text } from './tool.js';
import { walkFiles } from './walk-files.js';

const MAX_SCANNED = 50_000;
const MAX_LISTED = 500;

/** `glob`: files of the workspace matching a pattern; effect `none`. */
export const globTool = defineTool({
  name: 'glob',
  description:
    'List workspace files matching a glob pattern ("**/*.ts", "src/*.{js,json}"; a pattern without "/" matches file names at any depth). Paths are relative to the workspace root, sorted.',
  effect: 'none',
  inputSchema: z.object({
    pattern: z.string().min(1),
    path: z.string().min(1).optional().describe('Directory to search in, relative to the workspace root (default: the root)'),
  }),
  async execute(input, context) {
    const dir = context.workspace.resolve(input.path ?? '.');
    try {
      if (!statSync(dir.realPath).isDirectory()) return errorText(`${input.path} is not a directory.`);
    } catch {
      return errorText(`${input.path} does not exist.`);
    }
    const matcher = globToRegExp(input.pattern);
    const prefix = dir.relativePath === '' ? '' : `${dir.relativePath}/`;
    const { files, truncated } = walkFiles(context.workspace, dir.realPath, MAX_SCANNED);
    const matches = files.filter((file) => matcher.test(file.slice(prefix.length)));
    if (matches.length === 0) return text(`No files match ${input.pattern}${truncated ? ` in the first ${MAX_SCANNED} files` : ''}.`);
    const listed = matches.slice(0, MAX_LISTED);
    const more = matches.length > MAX_LISTED ? `\n(${matches.length - MAX_LISTED} more)` : '';
    return text(`${listed.join('\n')}${more}${truncated ? `\n(search stopped after ${MAX_SCANNED} files)` : ''}`);
  },
});

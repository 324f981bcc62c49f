import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, errorText, text } from './tool.js';

const MAX_READ_BYTES = 2 * 1024 * 1024;

/** `read`: a text file of the workspace with line numbers; effect `none`. */
export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file in the workspace. Returns its lines numbered from 1 ("<n>\\t<line>"); the numbers are not part of the file. Use offset (1-based first line) and limit for long files.',
  effect: 'none',
  inputSchema: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace root'),
    offset: z.number().int().positive().optional(),
    limit: z.number().int().positive().optional(),
  }),
  async execute(input, context) {
    const target = context.workspace.resolve(input.path);
    let size: number;
    try {
      const stat = statSync(target.realPath);
      if (stat.isDirectory()) return errorText(`${input.path} is a directory; use glob to list files.`);
      size = stat.size;
    } catch {
      return errorText(`${input.path} does not exist.`);
    }
    if (size > MAX_READ_BYTES) return errorText(`${input.path} is ${size} bytes; read files below ${MAX_READ_BYTES} bytes, or search it with grep.`);
    const content = readFileSync(target.realPath);
    if (content.includes(0)) return errorText(`${input.path} is a binary file.`);
    const lines = content.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const start = (input.offset ?? 1) - 1;
    const end = input.limit === undefined ? lines.length : Math.min(lines.length, start + input.limit);
    if (lines.length === 0) return text(`(${input.path} is empty)`);
    if (start >= lines.length) return errorText(`${input.path} has ${lines.length} lines; offset ${input.offset} is past the end.`);
    const numbered = lines.slice(start, end).map((line, index) => `${start + index + 1}\t${line}`);
    const more = end < lines.length ? `\n(${lines.length - end} more lines; read on with offset ${end + 1})` : '';
    return text(`${numbered.join('\n')}${more}`);
  },
});

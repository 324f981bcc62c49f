import { z } from 'zod';
import { applyToolEdit } from '../../checkpoint/index.js';
import { defineTool, text } from './tool.js';

/** `edit`: exact-string replacement through the checkpoint layer; effect `workspace`. */
export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace an exact string in an existing text file. oldString must occur exactly once (include surrounding lines to make it unique) unless replaceAll is true. Copy the text exactly, whitespace included, without read line numbers.',
  effect: 'workspace',
  capture: 'self',
  inputSchema: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace root'),
    oldString: z.string().min(1),
    newString: z.string(),
    replaceAll: z.boolean().optional(),
  }),
  async execute(input, context) {
    const result = await applyToolEdit(await context.capture(), {
      path: input.path,
      oldString: input.oldString,
      newString: input.newString,
      ...(input.replaceAll === undefined ? {} : { replaceAll: input.replaceAll }),
      toolName: 'edit',
      toolCallId: context.toolCallId,
    });
    if (result.checkpoint) context.recordCheckpoints([result.checkpoint]);
    return text(`Edited ${input.path}: ${result.replacements} replacement${result.replacements === 1 ? '' : 's'}.`);
  },
});

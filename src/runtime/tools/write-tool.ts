import { z } from 'zod';
import { applyToolWrite } from '../../checkpoint/index.js';
import { defineTool, text } from './tool.js';

/** `write`: create or replace a file through the checkpoint layer; effect `workspace`. */
export const writeTool = defineTool({
  name: 'write',
  description:
    'Create a file, or replace its whole content, in the workspace. Parent directories are created. Prefer edit for changing part of an existing file.',
  effect: 'workspace',
  capture: 'self',
  inputSchema: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace root'),
    content: z.string(),
  }),
  async execute(input, context) {
    const result = await applyToolWrite(await context.capture(), {
      path: input.path,
      content: input.content,
      toolName: 'write',
      toolCallId: context.toolCallId,
    });
    if (result.checkpoint) context.recordCheckpoints([result.checkpoint]);
    const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
    return text(`${result.created ? 'Created' : result.checkpoint ? 'Replaced' : 'Unchanged:'} ${input.path} (${lines} lines).`);
  },
});

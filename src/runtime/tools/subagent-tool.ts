import { z } from 'zod';
import { defineTool, errorText } from './tool.js';

/**
 * `subagent`: hands a self-contained task to a nested agent loop with the same model and tools
 * (except `subagent`). Its file changes are checkpointed against the *parent* turn — same turn id
 * and anchor — so rewinding the parent turn reverts them too. Its transcript is written to a child
 * session named in the tool message's metadata (`subagent.sessionId`); the model sees only its
 * final answer. Effect `workspace`; `runsTools`, so its nested calls take the capture lock themselves.
 */
export const subagentTool = defineTool({
  name: 'subagent',
  description:
    'Delegate a self-contained task (research, a focused change) to a sub-agent with the same tools. Give it everything it needs in prompt; it cannot see this conversation. Returns its final answer. Its file changes belong to this turn.',
  effect: 'workspace',
  runsTools: true,
  inputSchema: z.object({
    prompt: z.string().min(1),
    description: z.string().optional(),
  }),
  async execute(input, context) {
    if (!context.runSubagent) return errorText('A sub-agent cannot start another sub-agent; do the work with the other tools.');
    const result = await context.runSubagent(input.prompt, input.description === undefined ? {} : { description: input.description });
    return {
      output: { type: 'text', value: result.text },
      metadata: {
        subagent: {
          sessionId: result.sessionId,
          prompt: input.prompt,
          ...(input.description === undefined ? {} : { description: input.description }),
          status: result.status,
          messages: result.messages,
        },
      },
    };
  },
});

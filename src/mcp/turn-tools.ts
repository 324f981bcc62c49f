import { z } from 'zod';
import { defineMcpTool, ok, type AnyMcpTool } from './mcp-tool.js';

/** `begin_turn` and `end_turn`: how a client groups its calls into one undoable turn (see `McpSession`). */
export function turnTools(): AnyMcpTool[] {
  return [
    defineMcpTool({
      name: 'begin_turn',
      title: 'Begin a turn',
      description:
        "Start a turn for the person's request: every call until end_turn belongs to it, and one undo takes all of them back. Without it, each call that changes files is a turn of its own. Ends a turn still open.",
      inputSchema: z.object({ input: z.string().trim().min(1).max(100_000).describe("the person's request, as they typed it") }).strict(),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      async run(input, session) {
        const begun = await session.beginTurn(input.input);
        return ok(`Turn ${begun.turnId} begun.`, { sessionId: begun.sessionId, turnId: begun.turnId, messageId: begun.inputMessageId });
      },
    }),
    defineMcpTool({
      name: 'end_turn',
      title: 'End the turn',
      description: 'End the turn begin_turn opened, with your closing reply to the person if you like. Reports its file changes.',
      inputSchema: z.object({ reply: z.string().max(100_000).optional().describe('what you told the person at the end of the turn') }).strict(),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      async run(input, session) {
        const ended = await session.endTurn(input.reply);
        if (!ended) return ok('No turn was open.', { turnId: null, files: [] });
        const files = ended.summary.files.map((file) => ({ path: file.displayPath, op: file.op, added: file.added, removed: file.removed }));
        const uncovered = ended.uncovered.map((path) => ({ ...path }));
        const text = `Turn ${ended.turn.id} ended: ${files.map((file) => `${file.op} ${file.path}`).join(', ') || 'no file changes'}.`;
        return ok(text, { turnId: ended.turn.id, files, uncovered });
      },
    }),
  ];
}

import { displayPath } from '../checkpoint/index.js';
import type { JsonObject, JsonValue } from '../model/index.js';
import { bashTool, editTool, globTool, grepTool, readTool, writeTool, type RuntimeTool, type ToolOutput } from '../runtime/index.js';
import type { AnyMcpTool, McpToolAnnotations, McpToolResult } from './mcp-tool.js';

/** How long an implicit turn's input may be (the call's one-line description). */
const DESCRIPTION_CHARS = 120;

/**
 * The runtime's own file and shell tools, offered over MCP with their own names, descriptions and
 * input schemas: a call runs exactly as it would in a turn of Waypoint's agent (see `ToolHost`),
 * in the open turn or an implicit one (see `McpSession`), and its result lists the checkpoints it
 * recorded.
 */
export function fileTools(): AnyMcpTool[] {
  return [
    hosted(readTool, 'Read a file', { readOnlyHint: true }, null),
    hosted(globTool, 'Find files', { readOnlyHint: true }, null),
    hosted(grepTool, 'Search files', { readOnlyHint: true }, null),
    hosted(writeTool, 'Write a file (checkpointed)', { destructiveHint: true, idempotentHint: true }, (input) => `write ${String(input.path)}`),
    hosted(editTool, 'Edit a file (checkpointed)', { destructiveHint: true }, (input) => `edit ${String(input.path)}`),
    hosted(
      bashTool,
      'Run a shell command (checkpointed by a workspace scan)',
      { destructiveHint: true, openWorldHint: true },
      (input) => `bash: ${String(input.command)}`,
    ),
  ];
}

function hosted(
  tool: RuntimeTool<unknown>,
  title: string,
  annotations: McpToolAnnotations,
  describe: ((input: Record<string, unknown>) => string) | null,
): AnyMcpTool {
  return {
    name: tool.name,
    title,
    description: describe === null ? tool.description : `${tool.description} Every file change is checkpointed: list_changes shows it, undo takes it back.`,
    inputSchema: tool.inputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, ...annotations },
    async run(input, session) {
      const description = describe === null ? '' : oneLine(describe(input as Record<string, unknown>));
      const result = await session.call(tool.name, input as JsonValue, description, describe !== null);
      const checkpoints = result.checkpoints.map((checkpoint) => ({
        id: checkpoint.id,
        op: checkpoint.op,
        path: displayPath(checkpoint.path),
        ...(checkpoint.toPath === null ? {} : { toPath: displayPath(checkpoint.toPath) }),
        status: checkpoint.status,
      }));
      const data: JsonObject = { output: outputValue(result.output), turnId: result.turnId, checkpoints };
      const text = outputText(result.output);
      const note = checkpoints.length === 0 ? '' : `\n[checkpointed: ${checkpoints.map((checkpoint) => `${checkpoint.op} ${checkpoint.path}`).join(', ')}]`;
      const mcp: McpToolResult = { content: [{ type: 'text', text: `${text}${note}` }], structuredContent: data };
      if (result.output.type === 'error-text') mcp.isError = true;
      return mcp;
    },
  };
}

function outputText(output: ToolOutput): string {
  return output.type === 'json' ? JSON.stringify(output.value) : output.value;
}

function outputValue(output: ToolOutput): JsonValue {
  return output.value;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > DESCRIPTION_CHARS ? `${line.slice(0, DESCRIPTION_CHARS - 1)}…` : line;
}

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { packageRoot, parseInput } from '../model/index.js';
import { checkpointVerbs } from './checkpoint-verbs.js';
import { fileTools } from './file-tools.js';
import { McpSession, type McpSessionOptions } from './mcp-session.js';
import { toolError, type AnyMcpTool, type McpToolResult } from './mcp-tool.js';
import { turnTools } from './turn-tools.js';

/** What the server tells a client at initialization (clients pass it to their model). */
export const MCP_INSTRUCTIONS = [
  'Waypoint: file and shell tools whose every change is checkpointed, and the verbs to take changes back.',
  'Call begin_turn with the request you are working on and end_turn when done: one undo then takes back the whole turn.',
  'Without begin_turn, each call that changes files is a turn of its own.',
  'list_changes shows the turns and their files; preview_undo shows what undo would do; undo refuses to overwrite a file someone changed since unless resolutions say merge or force; redo takes an undo back; fork_workspace copies the files at a point into a new directory.',
].join(' ');

export interface WaypointMcpServer {
  server: Server;
  session: McpSession;
  tools: ReadonlyMap<string, AnyMcpTool>;
  /** Ends an open turn, stops background commands and closes the connection. */
  close(): Promise<void>;
}

/**
 * An MCP server (the official SDK's `Server`) over one Waypoint workspace session: the runtime's
 * checkpointed file and shell tools plus the checkpoint verbs. Every call's arguments are checked
 * by the tool's schema (the same one `tools/list` shows); a refusal is a tool error whose text
 * starts with Waypoint's stable code and whose structured content is `{ error: { code, message,
 * details } }`, so a model can read and correct it; an unknown tool is a JSON-RPC invalid-params error.
 *
 * @example
 * const { server } = createMcpServer({ waypoint, workdir: '/work/project' });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(options: McpSessionOptions): WaypointMcpServer {
  const session = new McpSession(options);
  const tools = new Map([...fileTools(), ...turnTools(), ...checkpointVerbs()].map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: 'waypoint', title: 'Waypoint', version: packageVersion() },
    { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
  );
  server.oninitialized = () => session.setClientName(server.getClientVersion()?.name);
  const listed: Tool[] = [...tools.values()].map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool),
    annotations: { title: tool.title, ...tool.annotations },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<McpToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}". Tools: ${[...tools.keys()].join(', ')}.`, { code: 'UNKNOWN_TOOL' });
    }
    try {
      const input = parseInput(tool.inputSchema, request.params.arguments ?? {}, 'arguments');
      return await tool.run(input, session);
    } catch (error) {
      return toolError(error);
    }
  });
  let closing: Promise<void> | null = null;
  return {
    server,
    session,
    tools,
    close: () =>
      (closing ??= (async () => {
        await session.close();
        await server.close();
      })()),
  };
}

function jsonSchema(tool: AnyMcpTool): Tool['inputSchema'] {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

function packageVersion(): string {
  return packageRoot().version;
}

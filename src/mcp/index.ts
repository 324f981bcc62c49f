// The MCP server: Waypoint's checkpointed file and shell tools and its checkpoint verbs (list, preview
// an undo, undo with resolutions, redo, fork into a directory) for any MCP client, with explicit or
// implicit turns (see McpSession).
export { createMcpServer, MCP_INSTRUCTIONS, type WaypointMcpServer } from './mcp-server.js';
export { McpSession, type McpSessionOptions } from './mcp-session.js';
export { toolError, type McpTool, type McpToolResult, type AnyMcpTool } from './mcp-tool.js';

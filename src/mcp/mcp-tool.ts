import type { z } from 'zod';
import { WaypointError, type JsonObject } from '../model/index.js';
import type { McpSession } from './mcp-session.js';

/** A tool result in MCP's shape: text for the model, and the same facts as structured content. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** MCP's tool annotations (hints a client may show or use to ask before a call). */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool the Waypoint MCP server offers: its schema is listed to clients and checks every call. */
export interface McpTool<Input = unknown> {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodType<Input, unknown>;
  annotations: McpToolAnnotations;
  run(input: Input, session: McpSession): Promise<McpToolResult>;
}

// biome-ignore lint/suspicious/noExplicitAny: parameter variance, as for the runtime's tool list; each input is checked by its own schema.
export type AnyMcpTool = McpTool<any>;

export function defineMcpTool<Schema extends z.ZodType>(tool: McpTool<z.infer<Schema>> & { inputSchema: Schema }): McpTool<z.infer<Schema>> {
  return tool;
}

/** A successful result: `text` for the model, `data` as structured content. */
export function ok(text: string, data: JsonObject): McpToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

/**
 * A refusal or failure as a tool error the model can read and act on: the text starts with
 * Waypoint's stable code, the structured content is `{ error: { code, message, details } }`.
 */
export function toolError(error: unknown): McpToolResult {
  const typed = WaypointError.is(error)
    ? error
    : new WaypointError({ code: 'INTERNAL', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`, cause: error });
  const { code, message, details } = typed.toJSON() as { code: string; message: string; details?: JsonObject };
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error: { code, message, details: details ?? {} } },
    isError: true,
  };
}

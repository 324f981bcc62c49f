import { z } from 'zod';
import { InvalidArgumentError, WaypointError } from '../model/index.js';

/** One protocol method: the schema its params must pass, and what it runs. */
export interface Method<Context> {
  params: z.ZodType;
  run(context: Context, params: never): Promise<unknown>;
}

/** Defines a method typed by its own params schema. */
export function method<Context, Schema extends z.ZodType>(
  params: Schema,
  run: (context: Context, params: z.infer<Schema>) => Promise<unknown>,
): Method<Context> {
  return { params, run: run as Method<Context>['run'] };
}

const Request = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().min(1),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type RpcId = string | number | null;

export interface RpcErrorBody {
  code: number;
  message: string;
  data: { code: string; message?: string; details?: Record<string, unknown>; httpStatus?: number };
}

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorBody };

function failure(id: RpcId, code: number, name: string, message: string): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message, data: { code: name, message } } };
}

/** A thrown error as JSON-RPC: a WaypointError keeps its own stable code in `data.code`; anything else is internal. */
export function errorBody(error: unknown): RpcErrorBody {
  if (error instanceof WaypointError) {
    const body = error.toJSON();
    const code = error instanceof InvalidArgumentError && body.code === 'INVALID_ARGUMENT' ? -32602 : -32000;
    return { code, message: body.message, data: { code: body.code, message: body.message, details: safeDetails(body.details), httpStatus: error.httpStatus } };
  }
  return { code: -32603, message: 'Internal error', data: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } };
}

/** Details made JSON-safe (a cause or a cycle must not break the reply). */
function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(details)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * Handles one JSON-RPC message text: parses, checks the envelope, validates the params with the
 * method's schema (nothing runs when they fail), runs it and maps any error. Returns null for a
 * notification (no id), which gets no reply.
 */
export async function handleRpc<Context>(text: string, methods: Readonly<Record<string, Method<Context>>>, context: Context): Promise<RpcResponse | null> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return failure(null, -32700, 'PARSE_ERROR', 'Parse error: the message is not JSON.');
  }
  const envelope = Request.safeParse(raw);
  if (!envelope.success) {
    const id = raw && typeof raw === 'object' && !Array.isArray(raw) && 'id' in raw ? ((raw as { id: RpcId }).id ?? null) : null;
    return failure(
      typeof id === 'string' || typeof id === 'number' ? id : null,
      -32600,
      'INVALID_REQUEST',
      'Invalid request: expected a JSON-RPC 2.0 request object.',
    );
  }
  const request = envelope.data;
  const id = request.id ?? null;
  const notification = request.id === undefined;
  const entry = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!entry) return notification ? null : failure(id, -32601, 'METHOD_NOT_FOUND', `Method not found: ${request.method}.`);
  try {
    const parsed = entry.params.safeParse(request.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InvalidArgumentError({ parameter: ['params', ...issue.path].join('.'), value: request.params ?? {}, reason: issue.message });
    }
    const result = await entry.run(context, parsed.data as never);
    return notification ? null : { jsonrpc: '2.0', id, result: result ?? null };
  } catch (error) {
    return notification ? null : { jsonrpc: '2.0', id, error: errorBody(error) };
  }
}

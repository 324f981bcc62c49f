import { z } from 'zod';
import { bytes, callable, count, parseInput, withMethods } from '../model/index.js';
import type { CaptureContext } from './capture-context.js';

/**
 * The schemas the capture entry points (tool writes and edits, the checkpointed file system, the
 * exec capture) check their arguments with, so a wrong type is an `INVALID_ARGUMENT` naming the
 * parameter before anything is read or written. Each check validates only: the caller's own
 * values (class instances, Buffers) are used afterwards.
 */

const optionalName = z.string().nullable().optional();
const mode = z.number().int().min(0).max(0o7777);

export const CaptureContextSchema = z
  .object({
    store: withMethods('addCheckpoints', 'getSession'),
    blobs: withMethods('beginPutMany', 'getMany'),
    workspace: withMethods('resolve'),
    sessionId: z.string().min(1),
    turnId: z.string().nullable().optional(),
    anchorMessageId: z.string().nullable().optional(),
  })
  .loose();

export const OpenCaptureContextSchema = z
  .object({
    store: withMethods('getSession', 'getTurn'),
    blobs: withMethods('beginPutMany', 'getMany'),
    sessionId: z.string(),
    turnId: z.string().nullable(),
    workspace: withMethods('resolve').optional(),
  })
  .loose();

const target = { path: z.string(), root: z.string().optional() };
const tool = { toolName: z.string().optional(), toolCallId: optionalName, maxFileSize: count.optional() };

export const ToolWriteInputSchema = z.object({ ...target, content: z.union([z.string(), bytes]), mode: mode.optional(), ...tool }).loose();

export const ToolEditInputSchema = z.object({ ...target, oldString: z.string(), newString: z.string(), replaceAll: z.boolean().optional(), ...tool }).loose();

export const ToolChangeSchema = CaptureContextSchema.extend({
  ...target,
  toolName: z.string(),
  toolCallId: optionalName,
  before: bytes.nullable(),
  after: bytes.nullable(),
  mode: mode.nullable().optional(),
  beforeMode: mode.nullable().optional(),
  maxFileSize: count.optional(),
}).loose();

export const ExecCaptureOptionsSchema = z
  .object({
    toolName: optionalName,
    toolCallId: optionalName,
    command: optionalName,
    maxFileSize: count.optional(),
    maxFiles: z.number().int().positive().optional(),
    memoryBudgetBytes: count.optional(),
    onProgress: callable.optional(),
  })
  .loose();

export const ExecHandleSchema = z
  .object({ context: CaptureContextSchema, options: z.object({}).loose(), before: z.object({ snapshot: z.instanceof(Map) }).loose(), rootsKey: z.string() })
  .loose();

export const CheckpointedFsOptionsSchema = z.object({ maxFileSize: count.optional(), toolName: optionalName, toolCallId: optionalName }).loose();

/** Options of the checkpointed file system's methods (which of them a method reads is up to it). */
export const FsCallOptionsSchema = z
  .object({ mode: mode.optional(), root: z.string().optional(), overwrite: z.boolean().optional(), recursive: z.boolean().optional() })
  .loose();

/** Checks a capture context (`context` names it in the error). */
export function checkCaptureContext(context: unknown): asserts context is CaptureContext {
  parseInput(CaptureContextSchema, context, 'context');
}

/** Checks one argument with `schema`, naming it `parameter` in the error. */
export function checkArgument(schema: z.ZodType, value: unknown, parameter: string): void {
  parseInput(schema, value, parameter);
}

/**
 * Checks the arguments of one checkpointed file system call: every named path a string,
 * `content` (when given) a string or Buffer, and the options object.
 */
export function checkFsCall(paths: Record<string, unknown>, options: unknown, content?: { content: unknown }): void {
  for (const [name, value] of Object.entries(paths)) parseInput(z.string(), value, name);
  if (content) parseInput(z.union([z.string(), bytes]), content.content, 'content');
  parseInput(FsCallOptionsSchema, options, 'options');
}

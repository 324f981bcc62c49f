import { z } from 'zod';
import { callable, withMethods } from '../model/index.js';

/**
 * The argument checks of the rewind entry points that take objects (the file rewinder's options,
 * conversation and session rewinds, save points), so a wrong type is an `INVALID_ARGUMENT`
 * naming the parameter before the store is read. Ids are only checked to be strings here: an id
 * that names nothing is the store's `*_NOT_FOUND`.
 */

const text = z.string();
const tasks = withMethods('stopTurns').optional();

export const FileRewinderOptionsSchema = z
  .object({
    store: withMethods('getSession', 'listCheckpoints'),
    blobs: withMethods('getMany').optional(),
    events: withMethods('emit').optional(),
    workspaceFor: callable.optional(),
  })
  .loose();

export const ApplyOptionsSchema = z.object({ onCommit: callable.optional() }).loose();

export const RewindConversationOptionsSchema = z
  .object({
    sessionId: text,
    messageId: text,
    mapAssistant: z.boolean().optional(),
    tasks,
    events: withMethods('emit').optional(),
    reason: z.enum(['rewind', 'edit', 'retry']).optional(),
  })
  .loose();

export const SessionRewindOptionsSchema = z
  .object({ sessionId: text, messageId: text, scope: z.enum(['conversation', 'workspace', 'both']), cascade: z.boolean().optional(), tasks })
  .loose();

export const SessionRewindApplyOptionsSchema = z.object({ messageId: text, tasks, reason: z.enum(['rewind', 'edit']).optional() }).loose();

export const PreviewObjectSchema = z.object({ sessionId: text }).loose();

export const SavePointTargetSchema = z
  .object({
    sessionId: text,
    turn: z.union([z.number().int().positive(), text]),
    point: z.enum(['A', 'B']).optional(),
    step: z.number().int().positive().optional(),
    tasks,
  })
  .loose();

export const SessionIdArgument = text;

export { parseInput } from '../model/index.js';

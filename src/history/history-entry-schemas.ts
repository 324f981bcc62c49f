import { z } from 'zod';
import { count, withMethods } from '../model/index.js';

/**
 * The argument checks of `SessionHistory`'s reads and head moves (its writes have their own
 * request schemas), so a wrong type is an `INVALID_ARGUMENT` naming the parameter. Ids are only
 * checked to be strings: one that names nothing is the store's `*_NOT_FOUND`.
 */

export const IdArgument = z.string();

export const HistoryStoreSchema = withMethods('history', 'appendMessage', 'moveHead');

export const HistoryOptionsSchema = z
  .object({
    parts: z.enum(['full', 'none']).optional(),
    fromDepth: count.optional(),
    toDepth: count.optional(),
    last: count.optional(),
    roles: z.array(z.string()).optional(),
  })
  .loose();

export const MoveHeadInputSchema = z
  .object({
    sessionId: z.string(),
    to: z.string().nullable(),
    reason: z.string(),
    expectedFrom: z.string().nullable().optional(),
    bumpGeneration: z.boolean().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const StartSessionAtInputSchema = z
  .object({
    parentSessionId: z.string(),
    at: z.string().nullable(),
    kind: z.enum(['fork', 'side_chat']),
    id: z.string().optional(),
    title: z.string().optional(),
    workdir: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    entries: z.array(z.object({}).loose()).optional(),
    messages: z.array(z.object({}).loose()).optional(),
    commandId: z.string().optional(),
  })
  .loose();

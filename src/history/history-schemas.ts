import { isAbsolute } from 'node:path';
import { z } from 'zod';

const jsonObject = z.record(z.string(), z.unknown());

export const CreateSessionRequest = z.object({
  title: z.string().trim().min(1).max(500).optional(),
  workdir: z
    .string()
    .refine((value) => isAbsolute(value), 'must be an absolute path')
    .nullable()
    .optional(),
  metadata: jsonObject.optional(),
  /** Capture the git branch of `workdir` (default true). */
  detectGitBranch: z.boolean().optional(),
});
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

export const PartInput = z.looseObject({ type: z.string().min(1) });

export const AppendRequest = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  kind: z.enum(['input', 'reply', 'tool_result', 'summary', 'meta', 'task_notification', 'fork_note', 'system']).optional(),
  status: z.enum(['complete', 'streaming', 'error', 'interrupted']).optional(),
  parts: z.array(PartInput),
  turnId: z.string().nullable().optional(),
  metadata: jsonObject.optional(),
  expectedHeadId: z.string().nullable().optional(),
});
export type AppendRequest = z.infer<typeof AppendRequest>;

export const TitleRequest = z.string().trim().min(1, 'a title cannot be empty').max(500);

export { parseInput } from '../model/index.js';

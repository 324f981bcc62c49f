import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '../model/index.js';

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

/** Parse `value` with `schema`, turning a failure into an `InvalidArgumentError` naming the field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, parameter: string): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length ? `${parameter}.${issue.path.join('.')}` : parameter;
  throw new InvalidArgumentError({ parameter: path, value, reason: issue.message });
}

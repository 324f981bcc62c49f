import { z } from 'zod';

const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), `expected an id like "${prefix}_01…"`);
const workspaceKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*:.+$/, 'expected a workspace path such as "workspace:src/a.ts"');

export const ConflictResolutionSchema = z.enum(['merge', 'force']);
/** A checked rewind's per-file choice: a conflict resolution, or `skip` (leave the file as it is). */
export const FileResolutionSchema = z.enum(['merge', 'force', 'skip']);

/** `preview` input: by message (that turn and every later one) or by turn, never both. */
export const FileRewindPreviewRequest = z
  .object({
    sessionId: id('ses'),
    messageId: id('msg').optional(),
    turnId: id('trn').optional(),
    /** Also undo changes made by shell commands (listed separately either way). Default false. */
    includeShellChanges: z.boolean().optional(),
    /** Per-file choices keyed by workspace path: ways past a conflict, or `skip`. */
    resolutions: z.record(workspaceKey, FileResolutionSchema).optional(),
  })
  .strict()
  .refine((request) => (request.messageId === undefined) !== (request.turnId === undefined), {
    message: 'give exactly one of messageId or turnId',
  });
export type FileRewindPreviewRequest = z.infer<typeof FileRewindPreviewRequest>;

export const SessionIdInput = id('ses');
export const MessageIdInput = id('msg');
export const TurnIdInput = id('trn');
export const CheckpointIdInput = id('chk');
export const RewindIdInput = id('jnl');

/** What `apply` needs back from a preview; the rest is recomputed and compared. */
export const PreviewInput = z
  .object({
    sessionId: id('ses'),
    target: z.union([z.object({ messageId: id('msg') }), z.object({ turnId: id('trn') })]),
    includeShellChanges: z.boolean(),
    resolutions: z.record(workspaceKey, FileResolutionSchema),
    files: z.array(z.object({ path: z.string(), currentHash: z.string().nullable() }).loose()),
  })
  .loose();

export const RedoOptionsInput = z
  .object({ resolutions: z.record(workspaceKey, ConflictResolutionSchema).optional(), skip: z.array(workspaceKey).optional() })
  .strict();

export { parseInput } from '../../model/index.js';

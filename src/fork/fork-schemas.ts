import { isAbsolute } from 'node:path';
import { z } from 'zod';

const id = z.string().trim().min(1).max(200);

/**
 * Where the child works. `shared` (default): the parent's directory. `isolated`: a new directory
 * materialized at the fork point — `dir` (absolute, missing or empty) or `<parent workdir>.forks/<child id>`.
 */
export const ForkWorkspace = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('shared') }),
  z.object({
    mode: z.literal('isolated'),
    dir: z
      .string()
      .refine((value) => isAbsolute(value), 'must be an absolute path')
      .optional(),
    /** Make the materialized tree durable before it appears (default true). */
    durable: z.boolean().optional(),
    /**
     * Ignored paths git (or the ignore files) does not track — `node_modules`, build output:
     * `copy` (default: the fork can run the project, and writes there stay in the fork), `link`
     * (a symlink to the parent's: instant, but writes through it change the parent's), `omit`.
     */
    ignored: z.enum(['copy', 'link', 'omit']).optional(),
    /**
     * Where the files come from: `auto` (default) the parent's directory when this machine can
     * reach it, else the store alone (another machine's session); `store` always the store.
     */
    source: z.enum(['auto', 'store']).optional(),
  }),
]);
export type ForkWorkspace = z.infer<typeof ForkWorkspace>;

const common = {
  sessionId: id,
  /** Idempotency: the same command id returns the same child and changes nothing more. */
  commandId: id.optional(),
  title: z.string().trim().min(1).max(500).optional(),
  workspace: ForkWorkspace.optional(),
  /** Shared workspace only: allow the fork to change the parent's files (after `previewFork`). */
  confirm: z.boolean().optional(),
  /** Per-file ways past conflicts in a shared-workspace fork (FileRewinder semantics). */
  resolutions: z.record(z.string(), z.enum(['merge', 'force'])).optional(),
  /** Undo shell-command changes too (default true: the fork point is a moment, whoever changed the files). */
  includeShellChanges: z.boolean().optional(),
};

export const ForkRequest = z.discriminatedUnion('from', [
  /** `/fork`, `/fork latest`, `/fork <checkpointId>`. */
  z.object({ from: z.literal('checkpoint'), checkpointId: z.union([z.literal('latest'), id]).optional(), ...common }),
  /** Fork at a message of a parent with no running turn. */
  z.object({ from: z.literal('message'), messageId: id, ...common }),
  /** The fork button: the final, non-error reply of a completed turn; the parent may be running. */
  z.object({ from: z.literal('stable'), messageId: id, ...common }),
  /** `/side <question>`, `/btw <question>`. */
  z.object({ from: z.literal('side-chat'), question: z.string().trim().min(1).max(100_000).optional(), ...common }),
]);
export type ForkRequest = z.infer<typeof ForkRequest>;

export const ForkFromRequest = z.object({
  sessionId: id,
  /** Turn number (1-based) or turn id. */
  turn: z.union([z.number().int().positive(), id]),
  /** The branch name: the child's title. */
  name: z.string().trim().min(1).max(500),
  point: z.enum(['A', 'B']).optional(),
  step: z.number().int().positive().optional(),
  commandId: id.optional(),
  workspace: ForkWorkspace.optional(),
  confirm: z.boolean().optional(),
});
export type ForkFromRequest = z.infer<typeof ForkFromRequest>;

export const EffectPolicy = z.enum(['ask', 'dry-run', 'run']);
export type EffectPolicy = z.infer<typeof EffectPolicy>;

export { parseInput } from '../model/index.js';

import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { displayPath, summarizeTurn } from '../checkpoint/index.js';
import { ConflictError, type JsonObject } from '../model/index.js';
import { applyRewind, forkSession, previewRewind, redo, rewindStatus, type OperationContext } from '../operations/index.js';
import type { FileRewindPreview } from '../rewind/index.js';
import { defineMcpTool, ok, type AnyMcpTool } from './mcp-tool.js';
import type { McpSession } from './mcp-session.js';

const Id = z.string().trim().min(1).max(200);

/** Which turns an undo takes back: the last one with changes (default), one turn, or an input and every turn after it. */
const UndoTarget = {
  turnId: Id.optional().describe('undo this turn only (ids from list_changes)'),
  messageId: Id.optional().describe("undo the turn of this input and every later one (an input's id from list_changes)"),
  includeShellChanges: z.boolean().default(true).describe('also undo what shell commands changed (default true)'),
  resolutions: z
    .record(z.string().min(1), z.enum(['merge', 'force']))
    .default({})
    .describe(
      'per file changed since the tools wrote it: merge (keep the later edits, when it applies cleanly) or force (overwrite; what is there is kept for redo)',
    ),
};
const UndoInput = z.object(UndoTarget).strict();
type UndoInput = z.infer<typeof UndoInput>;

function operations(session: McpSession): OperationContext {
  return { waypoint: session.waypoint };
}

async function preview(session: McpSession, input: UndoInput): Promise<FileRewindPreview> {
  const sessionId = await session.id();
  const target =
    input.messageId !== undefined ? { messageId: input.messageId } : input.turnId !== undefined ? { turnId: input.turnId } : { lastTurn: true as const };
  return previewRewind(operations(session), { sessionId, ...target, includeShellChanges: input.includeShellChanges, resolutions: input.resolutions });
}

function previewData(result: FileRewindPreview): JsonObject {
  return {
    canApply: result.canApply,
    blockers: result.blockers,
    files: result.files.map((file) => ({
      path: displayPath(file.path),
      status: file.status,
      action: file.action,
      reason: file.reason,
      mergeAvailable: file.mergeAvailable,
      resolution: file.resolution,
    })),
    shellChanges: result.shellChanges.map((change) => ({ op: change.op, path: displayPath(change.path), included: change.included })),
  };
}

function previewText(result: FileRewindPreview): string {
  const lines = result.files.map(
    (file) => `${file.status === 'safe' ? 'safe' : file.status}\t${file.action}\t${displayPath(file.path)}${file.reason ? ` — ${file.reason}` : ''}`,
  );
  return [...lines, result.canApply ? 'Undo can be applied.' : `Undo is blocked: ${result.blockers.join(' ')}`].join('\n');
}

export function checkpointVerbs(): AnyMcpTool[] {
  return [
    defineMcpTool({
      name: 'list_changes',
      title: 'List the recorded turns and their file changes',
      description:
        'The newest turns of this workspace session (newest first), each with its input and its net file changes (+/- lines). Ids here are what undo and fork_workspace take.',
      inputSchema: z.object({ limit: z.number().int().min(1).max(100).default(10) }).strict(),
      annotations: { readOnlyHint: true },
      async run(input, session) {
        const { store, blobs } = session.waypoint;
        const sessionId = await session.id();
        const status = await rewindStatus(operations(session), { sessionId });
        const inputs = new Map(status.targets.map((target) => [target.turnId, target]));
        const turns = (await store.listTurns(sessionId)).slice(-input.limit).reverse();
        const listed = [];
        for (const turn of turns) {
          const summary = await summarizeTurn(store, blobs, turn.id);
          listed.push({
            turnId: turn.id,
            messageId: turn.userMessageId,
            input: inputs.get(turn.id)?.text ?? null,
            status: turn.status,
            files: summary.files.map((file) => ({ path: file.displayPath, op: file.op, added: file.added, removed: file.removed })),
          });
        }
        const redoable = status.redo.fileRewinds.map((entry) => ({ rewindId: entry.rewindId, kind: entry.kind, files: entry.files }));
        const text =
          listed.length === 0
            ? 'No turns recorded yet.'
            : listed
                .map(
                  (turn) =>
                    `${turn.turnId} ${JSON.stringify(turn.input)} (${turn.status}): ${turn.files.map((file) => `${file.op} ${file.path}`).join(', ') || 'no file changes'}`,
                )
                .join('\n');
        return ok(text, { sessionId, turns: listed, redoable });
      },
    }),
    defineMcpTool({
      name: 'preview_undo',
      title: 'Preview an undo',
      description:
        'What undo would do to each file, changing nothing: safe, or changed since the tools wrote it (then resolutions merge or force), or why it cannot be restored.',
      inputSchema: UndoInput,
      annotations: { readOnlyHint: true },
      async run(input, session) {
        const result = await preview(session, input);
        return ok(previewText(result), previewData(result));
      },
    }),
    defineMcpTool({
      name: 'undo',
      title: 'Undo file changes',
      description:
        'Put files back as they were before the last turn (default), a turn, or an input and everything after it. A file changed since the tools wrote it blocks the undo unless resolutions say merge or force; nothing is changed then. redo takes an undo back.',
      inputSchema: UndoInput,
      annotations: { destructiveHint: true },
      async run(input, session) {
        const checked = await preview(session, input);
        if (!checked.canApply) {
          throw new ConflictError({
            code: 'REWIND_CONFLICT',
            message: `Nothing was changed: ${checked.blockers.join(' ')} Call preview_undo, then undo with resolutions.`,
            details: previewData(checked),
          });
        }
        const result = await applyRewind(operations(session), { sessionId: checked.sessionId, preview: checked });
        const files = (result.files?.files ?? []).map((file) => ({ path: displayPath(file.path), resolution: file.resolution, deleted: file.toHash === null }));
        return ok(
          `Undone: ${files.map((file) => file.path).join(', ') || 'nothing to change'}.${result.files?.rewindId ? ` redo with rewindId ${result.files.rewindId}.` : ''}`,
          {
            rewindId: result.files?.rewindId ?? null,
            files,
          },
        );
      },
    }),
    defineMcpTool({
      name: 'redo',
      title: 'Redo an undo',
      description: 'Take back an undo (default: the newest not yet redone). A file changed since the undo blocks unless listed in force (its content is kept).',
      inputSchema: z.object({ rewindId: Id.optional(), force: z.array(z.string().min(1)).default([]) }).strict(),
      annotations: { destructiveHint: true },
      async run(input, session) {
        const sessionId = await session.id();
        const rewindId = input.rewindId ?? (await rewindStatus(operations(session), { sessionId })).redo.fileRewinds[0]?.rewindId;
        if (rewindId === undefined)
          throw new ConflictError({ code: 'NOTHING_TO_REDO', message: 'No undo is left to take back in this session.', details: { sessionId } });
        const result = await redo(operations(session), { sessionId, rewindId, force: input.force });
        const files = result.type === 'files' ? result.result.files.map((file) => displayPath(file.path)) : [];
        return ok(`Redone: ${files.join(', ') || 'nothing to change'}.`, { rewindId: result.type === 'files' ? result.result.rewindId : null, files });
      },
    }),
    defineMcpTool({
      name: 'fork_workspace',
      title: 'Fork the workspace into a new directory',
      description:
        'A new session in its own directory, with the files as they were at an input (messageId: before it) or now (default). This workspace is not changed. Returns the directory.',
      inputSchema: z
        .object({
          messageId: Id.optional().describe('fork at this input (the files as they were before it)'),
          directory: z
            .string()
            .refine(isAbsolute, 'must be an absolute path')
            .optional()
            .describe('where (absolute, missing or empty; default <workdir>.forks/<id>)'),
          title: z.string().trim().min(1).max(500).optional(),
        })
        .strict(),
      annotations: { destructiveHint: false },
      async run(input, session) {
        const sessionId = await session.id();
        const workspace = { mode: 'isolated' as const, ...(input.directory === undefined ? {} : { dir: input.directory }) };
        const common = { sessionId, workspace, ...(input.title === undefined ? {} : { title: input.title }) };
        const messageId = input.messageId ?? (await session.waypoint.store.getSession(sessionId)).headMessageId;
        if (messageId === null)
          throw new ConflictError({
            code: 'NOTHING_TO_FORK',
            message: 'Nothing is recorded in this session yet: there is no point to fork at.',
            details: { sessionId },
          });
        const result = await forkSession(operations(session), { from: 'message', messageId, ...common });
        return ok(`Forked into ${result.workdir} (session ${result.session.id}).`, { sessionId: result.session.id, directory: result.workdir });
      },
    }),
  ];
}

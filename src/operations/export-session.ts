import { z } from 'zod';
import { storeLabel } from '../engine/index.js';
import { parseInput } from '../model/index.js';
import { exportFrames, importFrames, writeExportFile, type SessionImportReport, type TransferProgress } from '../transfer/index.js';
import type { OperationContext } from './operation-context.js';
import { openOtherStore, transferEndpoint } from './transfer-endpoint.js';

/**
 * Copy a session — with `family`, its whole family: forks, side chats, subagent transcripts — to
 * another store or into a portable export file (`to`: a `postgres://` URL, an SQLite store file,
 * or any other path for a file; absolute). Ids are kept. `overwrite` replaces an existing file.
 */
export const ExportSessionRequest = z
  .object({
    sessionId: z.string().min(1),
    family: z.boolean().default(false),
    to: z.string().min(1),
    overwrite: z.boolean().default(false),
  })
  .strict();
export type ExportSessionRequest = z.input<typeof ExportSessionRequest>;

export type ExportSessionResult =
  | {
      to: 'file';
      path: string;
      bytes: number;
      sessionId: string;
      family: boolean;
      sessionIds: string[];
      counts: Record<string, number>;
      missingBlobs: string[];
    }
  | ({ to: 'store'; location: string } & SessionImportReport);

/**
 * Exports a session. Into a store: the records are compared with the target's first (a record of
 * the same id with other content refuses the copy with `IMPORT_CONFLICT`, nothing written), then
 * written in one transaction; copying again changes nothing (`alreadyImported`). Into a file: a
 * gzip-compressed JSON-lines stream, written under a temporary name and renamed into place (see
 * docs/export.md). The source store is only read.
 *
 * @example
 * const result = await exportSession({ waypoint }, { sessionId, family: true, to: '/tmp/handoff.wpx' });
 */
export async function exportSession(
  context: OperationContext,
  request: ExportSessionRequest,
  options: { onProgress?: (progress: TransferProgress) => void } = {},
): Promise<ExportSessionResult> {
  const input = parseInput(ExportSessionRequest, request, 'request');
  const { store, blobs } = context.waypoint;
  await store.getSession(input.sessionId);
  const endpoint = transferEndpoint(input.to);
  const frames = exportFrames(store, blobs, { sessionId: input.sessionId, family: input.family }, options.onProgress);
  if (endpoint.kind === 'store') {
    const target = await openOtherStore(context.waypoint, endpoint.location, { readOnly: false });
    try {
      const report = await importFrames(target.store, target.blobs, frames, { source: storeLabel(store.location), ...options });
      return { to: 'store', location: storeLabel(endpoint.location), ...report };
    } finally {
      await target.close();
    }
  }
  let header: { sessionIds: string[]; counts: Record<string, number>; missingBlobs: string[] } | null = null;
  const bytes = await writeExportFile(
    endpoint.path,
    (async function* () {
      for await (const frame of frames) {
        if (frame.t === 'header') header = frame;
        yield frame;
      }
    })(),
    { overwrite: input.overwrite },
  );
  const { sessionIds, counts, missingBlobs } = header!;
  return { to: 'file', path: endpoint.path, bytes, sessionId: input.sessionId, family: input.family, sessionIds, counts, missingBlobs };
}

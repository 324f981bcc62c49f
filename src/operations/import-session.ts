import { z } from 'zod';
import { storeLabel } from '../engine/index.js';
import { InvalidArgumentError, parseInput } from '../model/index.js';
import { exportFrames, importFrames, readExportFile, type SessionImportReport, type TransferProgress } from '../transfer/index.js';
import type { OperationContext } from './operation-context.js';
import { openOtherStore, transferEndpoint } from './transfer-endpoint.js';

/**
 * Import into the open store: `from` an export file, or from another store (a `postgres://` URL or
 * an SQLite store file; absolute), then naming `sessionId` (and `family`) to copy.
 */
export const ImportSessionRequest = z
  .object({
    from: z.string().min(1),
    sessionId: z.string().min(1).optional(),
    family: z.boolean().default(false),
  })
  .strict();
export type ImportSessionRequest = z.input<typeof ImportSessionRequest>;

export type ImportSessionResult = SessionImportReport & { from: string };

/**
 * Imports a session (or family) with its blobs, ids kept. Every blob is checked against its hash;
 * a damaged or cut-off file is refused (`EXPORT_FILE_CORRUPT`, `EXPORT_FILE_TRUNCATED`) and a
 * record that differs from one the store has under the same id refuses the import
 * (`IMPORT_CONFLICT`), in both cases with no record written. The records commit in one
 * transaction, so a killed import leaves none of them; importing again changes nothing and says so
 * (`alreadyImported`).
 *
 * @example
 * const report = await importSession({ waypoint }, { from: '/tmp/handoff.wpx' });
 * if (report.alreadyImported) console.log('nothing new');
 */
export async function importSession(
  context: OperationContext,
  request: ImportSessionRequest,
  options: { onProgress?: (progress: TransferProgress) => void } = {},
): Promise<ImportSessionResult> {
  const input = parseInput(ImportSessionRequest, request, 'request');
  const { store, blobs } = context.waypoint;
  const endpoint = transferEndpoint(input.from);
  if (endpoint.kind === 'file') {
    const report = await importFrames(store, blobs, readExportFile(endpoint.path), { source: endpoint.path, ...options });
    return { from: endpoint.path, ...report };
  }
  if (input.sessionId === undefined) {
    throw new InvalidArgumentError({ parameter: 'sessionId', value: undefined, reason: 'importing from a store needs the session to copy.' });
  }
  const source = await openOtherStore(context.waypoint, endpoint.location, { readOnly: true });
  try {
    const frames = exportFrames(source.store, source.blobs, { sessionId: input.sessionId, family: input.family }, options.onProgress);
    const report = await importFrames(store, blobs, frames, { source: storeLabel(endpoint.location), ...options });
    return { from: storeLabel(endpoint.location), ...report };
  } finally {
    await source.close();
  }
}

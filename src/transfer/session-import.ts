import { createHash } from 'node:crypto';
import type { BlobPin, BlobStore } from '../blobs/index.js';
import type { RecordsImport, RecordsImportResult, Store } from '../store/index.js';
import { corruptFile, type ExportFrame, type ExportHeader, type TransferProgress } from './transfer-format.js';

/** What an import did. */
export interface SessionImportReport {
  sessionId: string;
  family: boolean;
  sessionIds: string[];
  /** True when every record was there already, identical: the import changed nothing. */
  alreadyImported: boolean;
  records: RecordsImportResult;
  blobs: {
    /** Blobs in the import. */
    total: number;
    /** Of them, stored by this import (the rest the store had). */
    stored: number;
    bytes: number;
  };
  /** Hashes the source's records named that the source itself did not have. */
  missingBlobs: string[];
}

/**
 * Imports an export's frames into `store`: the records are gathered first and checked against the
 * store (`checkOnly`: a conflicting record refuses the import before any blob is stored), then each
 * blob is verified against its hash and stored (pinned, so no GC sweeps it before its records
 * commit), then every record is written in one transaction. A kill at any instant leaves either no
 * record of the import or all of them; blobs stored before a kill are unreferenced and swept by GC.
 * `source` names the file in errors.
 */
export async function importFrames(
  store: Store,
  blobs: BlobStore,
  frames: AsyncIterable<ExportFrame>,
  options: { source: string; onProgress?: (progress: TransferProgress) => void },
): Promise<SessionImportReport> {
  const { source, onProgress } = options;
  const records: RecordsImport = { sessions: [], messages: [], entries: [], turns: [], checkpoints: [], effects: [], pins: [] };
  let header: ExportHeader | null = null;
  let checked: RecordsImportResult | null = null;
  const pins: BlobPin[] = [];
  const blobTotals = { total: 0, stored: 0, bytes: 0 };
  let named = new Set<string>();
  let batch: Array<{ hash: string; content: Buffer }> = [];
  let batchBytes = 0;
  // Blobs are stored in batches (one sync each), never more than a batch held in memory.
  const flush = async () => {
    const present = await blobs.hasMany(batch.map((item) => item.hash));
    const fresh = batch.filter((item) => !present.has(item.hash));
    if (fresh.length > 0) await blobs.putMany(fresh.map((item) => ({ content: item.content, hash: item.hash, verified: true })));
    blobTotals.stored += fresh.length;
    batch = [];
    batchBytes = 0;
  };
  const check = async () => {
    checked ??= await store.importRecords(records, { checkOnly: true });
  };
  try {
    for await (const frame of frames) {
      switch (frame.t) {
        case 'header':
          header = frame;
          break;
        case 'session':
          records.sessions.push(frame.record);
          break;
        case 'message':
          records.messages.push(frame.record);
          break;
        case 'entry':
          records.entries.push(frame.record);
          break;
        case 'turn':
          records.turns.push(frame.record);
          break;
        case 'checkpoint':
          records.checkpoints.push(frame.record);
          break;
        case 'effect':
          records.effects.push(frame.record);
          break;
        case 'pin':
          records.pins.push({ owner: frame.owner, hashes: frame.hashes });
          break;
        case 'blob': {
          if (!checked) {
            await check();
            named = namedHashes(records);
            pins.push(await blobs.pin([...named]));
          }
          const content = Buffer.from(frame.data, 'base64');
          if (content.length !== frame.size || createHash('sha256').update(content).digest('hex') !== frame.hash) {
            throw corruptFile(source, `the content of blob ${frame.hash} does not match its hash`);
          }
          if (!named.has(frame.hash)) throw corruptFile(source, `it holds blob ${frame.hash}, which none of its records names`);
          blobTotals.total++;
          blobTotals.bytes += content.length;
          batch.push({ hash: frame.hash, content });
          batchBytes += content.length;
          if (batch.length >= 256 || batchBytes >= BATCH_BYTES) await flush();
          onProgress?.({ phase: 'blobs', done: blobTotals.bytes, total: header?.counts.blobBytes ?? blobTotals.bytes });
          break;
        }
        case 'end':
          break;
        default:
          throw corruptFile(source, `a line of unknown type ${JSON.stringify((frame as { t?: unknown }).t)}`);
      }
    }
    await flush();
    if (!header) throw corruptFile(source, 'it has no header');
    checkCounts(source, header, records, blobTotals.total);
    await check();
    onProgress?.({ phase: 'commit', done: 0, total: 1 });
    const result = await store.importRecords(records);
    onProgress?.({ phase: 'commit', done: 1, total: 1 });
    const inserted = Object.values(result.inserted).reduce((sum, count) => sum + count, 0);
    return {
      sessionId: header.sessionId,
      family: header.family,
      sessionIds: header.sessionIds,
      alreadyImported: inserted === 0,
      records: result,
      blobs: blobTotals,
      missingBlobs: header.missingBlobs,
    };
  } finally {
    for (const pin of pins) await pin.release();
  }
}

const BATCH_BYTES = 8 * 1024 * 1024;

/** Every blob hash the records name: checkpoints' contents, parts' blobs, pins. */
function namedHashes(records: RecordsImport): Set<string> {
  const named = new Set<string>();
  for (const checkpoint of records.checkpoints) {
    if (checkpoint.beforeHash) named.add(checkpoint.beforeHash);
    if (checkpoint.afterHash) named.add(checkpoint.afterHash);
  }
  for (const message of records.messages) for (const part of message.parts) if (typeof part.blobHash === 'string') named.add(part.blobHash);
  for (const pin of records.pins) for (const hash of pin.hashes) named.add(hash);
  return named;
}

function checkCounts(source: string, header: ExportHeader, records: RecordsImport, blobs: number): void {
  const counts = header.counts;
  const actual: Record<string, number> = { blobs };
  for (const [kind, items] of Object.entries(records)) actual[kind] = (items as unknown[]).length;
  for (const kind of ['sessions', 'messages', 'entries', 'turns', 'checkpoints', 'effects', 'blobs'] as const) {
    if (counts[kind] !== actual[kind]) throw corruptFile(source, `its header announces ${counts[kind]} ${kind} but it holds ${actual[kind]}`);
  }
}

// The check after a run (or again later, with `--check <dir>`): open the store as any later
// process would (recovery runs, and is logged like every other writer), read the store's account,
// the disk and the logs, and run the oracle.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWaypoint, recoverJournals, recoverWriteIntents } from './engine.js';
import { readStoreAccount } from './oracle-account.js';
import { readDisk } from './oracle-disk.js';
import { runOracle } from './oracle.js';
import type { SoakLayout } from './soak-env.js';
import { buildHistory } from './soak-history.js';
import { readLogs, SoakLog } from './soak-log.js';
import { buildReport, type SoakReport } from './soak-report.js';

/** What a run was started with, kept beside its logs so a later `--check` reports it. */
export interface SoakSettings {
  seed: number;
  seconds: number;
  workers: number;
  without: string[];
}

export function saveSettings(layout: SoakLayout, settings: SoakSettings): void {
  writeFileSync(join(layout.root, 'soak.json'), JSON.stringify(settings));
}

export async function checkSoak(layout: SoakLayout): Promise<SoakReport> {
  const settings = JSON.parse(readFileSync(join(layout.root, 'soak.json'), 'utf8')) as SoakSettings;
  const log = new SoakLog(join(layout.logs, 'main.jsonl'), 'main');
  const checkStart = Date.now();
  const id = `main-open-${checkStart}`;
  log.write({ type: 'start', id, op: 'open', session: null, paths: null, intents: [] });
  const waypoint = await openWaypoint({ path: layout.storePath });
  const first = waypoint.recovery!;
  // Every soak process is gone by now: a journal skipped as "live" names a reused pid.
  const again = first.skipped.length > 0 ? await recoverJournals(waypoint.store, undefined, { blobs: waypoint.blobs, includeLive: true }) : null;
  // Likewise a write or shell capture in flight skipped as "its process may still run": recorded now.
  const writesAgain =
    (waypoint.recoveredWrites?.skipped.length ?? 0) > 0 ? await recoverWriteIntents(waypoint.store, waypoint.blobs, { includeLive: true }) : null;
  const recovered = [...first.recovered, ...(again?.recovered ?? [])];
  const failed = [...first.failed, ...(again?.failed ?? [])];
  log.write({
    type: 'end',
    id,
    outcome: 'ok',
    recovered: [...recovered, ...failed].map((journal) => journal.journalId),
    preserved: recovered.flatMap((journal) => journal.preserved),
    ...(writesAgain ? { writesRecordedAgain: writesAgain.completed.length } : {}),
  });
  log.close();
  const account = await readStoreAccount(waypoint, layout.work);
  await waypoint.close();
  const disk = readDisk(layout);
  const records = readLogs(layout.logs);
  const history = buildHistory(records, checkStart);
  const spawns = records.filter((record) => record.type === 'spawn').length;
  return buildReport({
    ...settings,
    root: layout.root,
    history,
    oracle: runOracle(history, account, disk),
    restarts: Math.max(0, spawns - settings.workers - (settings.without.includes('person') ? 0 : 1)),
    recovery: {
      recovered: recovered.length,
      skipped: (again ?? first).skipped.length,
      failed: failed.flatMap((journal) => journal.files.map((file) => `${journal.journalId} ${file.path}: ${file.reason}`)),
    },
  });
}

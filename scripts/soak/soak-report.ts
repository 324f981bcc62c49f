// What the soak prints: counts of operations by kind and outcome, kills, what the check covered,
// and every finding with its evidence; `--json` prints the same as one document.
import type { OracleResult } from './oracle.js';
import type { SoakHistory } from './soak-history.js';

export interface SoakReport {
  seed: number;
  seconds: number;
  workers: number;
  without: string[];
  root: string;
  operations: Record<string, { ok: number; refused: Record<string, number>; failed: number; killed: number }>;
  kills: number;
  restarts: number;
  /** Workers that exited on their own with a failure (not killed by the soak). */
  crashes: Array<{ proc: string; code: number | null; signal: string | null }>;
  /** Errors that were not typed WaypointErrors, by message. */
  untypedErrors: Record<string, number>;
  personSaves: number;
  checked: OracleResult['checked'];
  /** Findings by kind. */
  counts: Record<string, number>;
  /** Contents lost: gone (nothing keeps them), unreadable (a record names them, they do not read back), foreign (a file holds what nobody wrote). */
  lost: number;
  /** Contents overwritten that only a pin keeps (a rollback's "preserved" copy): readable, but no command shows them. */
  hidden: number;
  findings: OracleResult['findings'];
  pendingJournals: string[];
  leftovers: string[];
  /** What the check's own store open recovered; `failed`: files a pending journal could not put back. */
  recovery: { recovered: number; skipped: number; failed: string[] };
}

export function buildReport(input: {
  seed: number;
  seconds: number;
  workers: number;
  without: string[];
  root: string;
  history: SoakHistory;
  oracle: OracleResult;
  restarts: number;
  recovery: SoakReport['recovery'];
}): SoakReport {
  const operations: SoakReport['operations'] = {};
  const untypedErrors: Record<string, number> = {};
  for (const op of input.history.ops) {
    if (op.op === 'turn-start' || op.op === 'turn-end') continue;
    const counts = (operations[op.op] ??= { ok: 0, refused: {}, failed: 0, killed: 0 });
    if (op.outcome === 'ok') counts.ok++;
    else if (op.outcome === 'refused') counts.refused[op.code ?? '?'] = (counts.refused[op.code ?? '?'] ?? 0) + 1;
    else if (op.outcome === 'failed') {
      counts.failed++;
      const key = `${op.op}: ${(op.message ?? '')
        .replace(/\s+/g, ' ')
        .replace(/[0-9a-f]{16,}|\/tmp\/\S+/g, '…')
        .slice(0, 160)}`;
      untypedErrors[key] = (untypedErrors[key] ?? 0) + 1;
    } else counts.killed++;
  }
  const counts: Record<string, number> = { gone: 0, hidden: 0, unreadable: 0, foreign: 0, diverged: 0, superseded: 0 };
  for (const finding of input.oracle.findings) counts[finding.kind] = (counts[finding.kind] ?? 0) + 1;
  return {
    seed: input.seed,
    seconds: input.seconds,
    workers: input.workers,
    without: input.without,
    root: input.root,
    operations,
    kills: input.history.kills.filter((kill) => !kill.final).length,
    restarts: input.restarts,
    crashes: input.history.exits.filter((exit) => exit.proc !== 'person' && exit.code !== 0 && exit.signal === null),
    untypedErrors,
    personSaves: input.history.person.length,
    checked: input.oracle.checked,
    counts,
    lost: counts.gone! + counts.unreadable! + counts.foreign!,
    hidden: counts.hidden!,
    findings: input.oracle.findings,
    pendingJournals: input.oracle.pendingJournals,
    leftovers: input.oracle.leftovers,
    recovery: input.recovery,
  };
}

export function renderReport(report: SoakReport): string {
  const lines: string[] = [];
  lines.push(
    `concurrency soak: seed ${report.seed}, ${report.workers} workers${report.without.includes('person') ? '' : ' + the person'}, ${report.seconds} s${report.without.length ? `, without ${report.without.join(', ')}` : ''}, in ${report.root}`,
  );
  lines.push(`kills: ${report.kills} (workers restarted ${report.restarts} times); person saves: ${report.personSaves}`);
  lines.push('operations (ok / refused by code / untyped failures / killed midway):');
  for (const [op, counts] of Object.entries(report.operations).sort()) {
    const refused = Object.entries(counts.refused)
      .map(([code, count]) => `${code} ${count}`)
      .join(', ');
    lines.push(
      `  ${op.padEnd(26)} ${String(counts.ok).padStart(5)} ok${refused ? `; refused: ${refused}` : ''}${counts.failed ? `; failed ${counts.failed}` : ''}${counts.killed ? `; killed ${counts.killed}` : ''}`,
    );
  }
  for (const [message, count] of Object.entries(report.untypedErrors)) lines.push(`  untyped error ×${count}: ${message}`);
  for (const crash of report.crashes) lines.push(`  worker ${crash.proc} exited on its own: code ${crash.code} (see logs/${crash.proc}.stderr)`);
  const c = report.checked;
  lines.push(
    `checked: ${c.sessions} sessions, ${c.checkpoints} checkpoints, ${c.rewinds} rewind records, ${c.blobsRead} contents read back, ${c.files} files on disk over ${c.paths} paths, ${c.personSaves} person saves, ${c.initialFiles} initial files`,
  );
  lines.push(
    `recovery at the check: ${report.recovery.recovered} journals rolled back, ${report.recovery.skipped} skipped, ${report.recovery.failed.length} files it could not put back`,
  );
  for (const failure of report.recovery.failed) lines.push(`  could not put back: ${failure}`);
  lines.push(
    `pending journals after recovery: ${report.pendingJournals.length}${report.pendingJournals.length ? ` (${report.pendingJournals.join(', ')})` : ''}`,
  );
  lines.push(
    `leftover temp files / staging directories: ${report.leftovers.length}${report.leftovers.length ? ` (${report.leftovers.slice(0, 5).join(', ')}${report.leftovers.length > 5 ? ' …' : ''})` : ''}`,
  );
  const count = (kind: string) => report.counts[kind] ?? 0;
  lines.push(
    `lost: ${report.lost} (gone ${count('gone')}, unreadable ${count('unreadable')}, foreign ${count('foreign')}); hidden (kept only by a pin no command shows): ${report.hidden}; diverged files: ${count('diverged')}; superseded by the person's own next save while a rollback or Write held them aside (not a loss): ${count('superseded')}`,
  );
  for (const finding of report.findings) {
    if (finding.kind === 'superseded') continue;
    lines.push(`- ${finding.kind} ${finding.path} ${finding.hash?.slice(0, 12) ?? '(absent)'}: ${finding.detail}`);
    lines.push(`    cause: ${finding.cause}`);
    for (const suspect of finding.suspects.slice(0, 6)) lines.push(`    near: ${suspect}`);
  }
  if (report.lost > 0 || report.hidden > 0 || report.counts.diverged! > 0) lines.push(`FAILED with seed ${report.seed} (rerun: --seed ${report.seed})`);
  return lines.join('\n');
}

// The final check. Its rule for lost content: every content the person saved (or the workspace
// started with) is still on disk, or the person itself moved it to the trash, or a checkpoint or a
// rewind record names it and it reads back; otherwise Waypoint overwrote or deleted it without
// keeping it. Contents only a pin keeps (a rollback's "preserved" copy, a scan snapshot) are
// reported apart: readable, but no command shows them. Every file on disk must be a content
// somebody wrote, and a state that could be the path's last one given what happened after it.
import { createHash } from 'node:crypto';
import type { StoreAccount } from './oracle-account.js';
import type { DiskState } from './oracle-disk.js';
import { markerOf } from './soak-env.js';
import { pathEvents, type OpWindow, type PathEvent, type SoakHistory } from './soak-history.js';

/** Clock slack between processes when ordering their records (ms). */
const MARGIN_MS = 5;

export interface Finding {
  kind: 'gone' | 'hidden' | 'unreadable' | 'foreign' | 'diverged' | 'superseded';
  path: string;
  hash: string | null;
  /** What happened, in words, with the evidence. */
  detail: string;
  cause: string;
  suspects: string[];
}

export interface OracleResult {
  findings: Finding[];
  checked: {
    personSaves: number;
    initialFiles: number;
    files: number;
    paths: number;
    checkpoints: number;
    rewinds: number;
    blobsRead: number;
    sessions: number;
  };
  pendingJournals: string[];
  leftovers: string[];
}

const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function runOracle(history: SoakHistory, account: StoreAccount, disk: DiskState): OracleResult {
  const findings: Finding[] = [];
  const onDisk = new Set(disk.files.values());
  const trashed = new Set(disk.trash.values());
  const journalsAt = (path: string) => account.journals.filter((journal) => journal.items.some((item) => item.path.slice(item.path.indexOf(':') + 1) === path));
  const touching = (op: OpWindow, path: string) => op.paths === null || op.paths.includes(path) || op.intents.some((intent) => intent.path === path);
  const describe = (op: OpWindow) =>
    `${op.op} ${op.id} ${op.start}–${op.end} ${op.outcome}${op.code ? ` ${op.code}` : ''}${op.message && op.outcome === 'failed' ? ` (${op.message.slice(0, 120)})` : ''}`;
  const suspectsOf = (path: string, after: number): string[] => [
    ...history.ops
      .filter((op) => op.end >= after && op.op !== 'open' && touching(op, path) && op.op !== 'rewind-preview')
      .slice(0, 8)
      .map(describe),
    ...journalsAt(path)
      .filter((journal) => journal.updatedAt >= after)
      .map(
        (journal) => `journal ${journal.id} ${journal.state} at ${journal.updatedAt} (${String(journal.metadata.kind)}, pid ${String(journal.metadata.pid)})`,
      ),
  ];

  // 1. Every content a record names must read back.
  const sweeps = history.ops.filter((op) => op.op === 'gc' || op.op === 'retention-trim');
  for (const [hash, code] of account.unreadable) {
    const refs = account.visible.get(hash) ?? [];
    const person = history.person.find((save) => save.hash === hash);
    // Named only by journals rolled back before the contents they keep were stored (their process
    // was killed between recording the journal and storing them; no file was touched yet), while
    // the content itself is still a file or in the person's trash: nothing was lost.
    const namers = account.journals.filter((journal) => journal.items.some((item) => item.expectedHash === hash || item.targetHash === hash));
    if (refs.length === 0 && namers.length > 0 && namers.every((journal) => journal.state === 'rolled_back') && (onDisk.has(hash) || trashed.has(hash))) {
      findings.push({
        kind: 'superseded',
        path: person?.path ?? '',
        hash,
        detail: `${code}: named only by ${namers.map((journal) => journal.id).join(', ')} (rolled back before storing what it keeps); the content is ${onDisk.has(hash) ? 'on disk' : "in the person's trash"}`,
        cause: 'a rewind killed between recording its journal and storing its contents, rolled back by recovery before it touched a file',
        suspects: [],
      });
      continue;
    }
    const first = refs.reduce<number | null>((earliest, ref) => (earliest === null || ref.createdAt < earliest ? ref.createdAt : earliest), null);
    // The blob is indexed (durable) before the row that names it commits; a sweep in that gap.
    // Named only by a pin: a rollback stored the person's save and pinned it after a sweep had listed it.
    const pinnedBy =
      first === null && person
        ? journalsAt(person.path)
            .filter((journal) => journal.state === 'rolled_back' && journal.updatedAt >= person.doneAt)
            .sort((a, b) => a.updatedAt - b.updatedAt)[0]
        : undefined;
    const racing =
      first !== null
        ? sweeps.filter((op) => op.start <= first + MARGIN_MS && op.end >= first - 1000)
        : pinnedBy && person
          ? sweeps.filter((op) => op.start <= pinnedBy.updatedAt + MARGIN_MS && op.end >= person.doneAt)
          : [];
    findings.push({
      kind: 'unreadable',
      path: person?.path ?? '',
      hash,
      detail: `${code} (${person ? `the person's save ${person.id}` : 'an agent or initial content'}): ${
        refs.length
          ? refs
              .slice(0, 3)
              .map((ref) => ref.where)
              .join('; ')
          : 'only a pin or a journal names it'
      }${refs.length > 3 ? ` (+${refs.length - 3} more)` : ''}`,
      cause:
        racing.length === 0
          ? 'unknown: no gc ran while its first record (or pin) was being written'
          : `swept by ${racing.map((op) => `${op.op} ${op.id} (${op.start}–${op.end})`).join(', ')}, which ran while ${pinnedBy ? `the rollback of ${pinnedBy.id} stored it and pinned it (at ${pinnedBy.updatedAt})` : 'the first record naming it was being written'}`,
      suspects: racing.map(describe),
    });
  }

  // 2. Every content the person saved, and every initial file, is kept somewhere.
  const events = pathEvents(history, account.records, account.journals);
  /**
   * What most likely destroyed a save: of the Waypoint writes that could have (each at the time it
   * would have), the earliest, and none later than the first recorded change of the path after
   * the save, by which time the save was gone.
   */
  const causeOf = (content: { path: string; hash: string; intentAt: number; doneAt: number }, pinned: boolean): string => {
    const goneBy = (events.get(content.path) ?? [])
      .filter((event) => event.certain && event.result !== content.hash && event.lo >= content.doneAt)
      .sort((a, b) => a.hi - b.hi)[0];
    const bound = (goneBy?.hi ?? Infinity) + MARGIN_MS;
    // A recovery that kept the save before overwriting it: the save was on disk until then.
    const recovery = history.ops.find((op) => op.preserved.some((entry) => entry.hash === content.hash));
    if (recovery)
      return `recovery in ${recovery.id} (a store open, ${recovery.start}–${recovery.end}) rolled back a killed rewind over it (kept only as a "preserved" pin)`;
    const during = (start: number, end: number) => start <= content.doneAt + MARGIN_MS && end >= content.intentAt - MARGIN_MS;
    const kept = pinned ? ' (kept only as a "preserved" pin)' : '';
    // `earliest`: when it could first have written the file; `at`: when it wrote it at the latest.
    const candidates: Array<{ earliest: number; at: number; text: string; keeps?: boolean }> = [];
    for (const op of history.ops) {
      if (!touching(op, content.path) || op.end < content.intentAt - MARGIN_MS) continue;
      if (op.op === 'tool-write' || op.op === 'tool-edit') {
        if (during(op.start, op.end)) {
          candidates.push({
            earliest: op.start,
            at: op.end,
            text: `saved while ${op.id} (a Write/Edit of the same file, ${op.start}–${op.end}) was in flight: the Write read the file before the save and replaced it after, without reading it again`,
          });
        } else if (!op.ended) {
          candidates.push({
            earliest: op.start,
            at: op.end,
            text: `${op.id}, a Write of the same file (${op.start}–${op.end}), was killed after it replaced the file and before its checkpoint was recorded`,
          });
        }
      } else if (op.op === 'shell' && op.outcome !== 'ok' && op.start >= content.doneAt) {
        const how = op.ended ? `its capture failed (${op.code ?? op.message ?? op.outcome})` : 'it was killed during its capture';
        candidates.push({
          earliest: op.start,
          at: op.end,
          text: `${op.id}, a shell command writing the same file (${op.start}–${op.end}): ${how}; the command replaced the file and nothing recorded it`,
        });
      }
    }
    for (const journal of journalsAt(content.path)) {
      if (journal.updatedAt < content.intentAt - MARGIN_MS) continue;
      const name = `${journal.id} (${String(journal.metadata.kind)})`;
      // Killed before the journal was finished: a recovery in another process finished it.
      const killedAt = history.kills.find((kill) => kill.pid === journal.metadata.pid && kill.t <= journal.updatedAt + MARGIN_MS)?.t;
      const ownEnd = killedAt ?? journal.updatedAt;
      if (during(journal.createdAt, ownEnd)) {
        const rollback = journal.state === 'rolled_back' && killedAt === undefined;
        candidates.push({
          earliest: journal.createdAt,
          at: ownEnd,
          keeps: rollback,
          text: rollback
            ? pinned
              ? `the save landed while ${name} was applying to the same file (${journal.createdAt}–${ownEnd}); the apply was refused and its rollback put the expected content back over the save${kept}`
              : `the save landed while ${name} was rolling back (${journal.createdAt}–${ownEnd}): the rollback read the file before the save and wrote it after, without reading it again`
            : `the save landed while ${name} was applying to the same file (${journal.createdAt}–${ownEnd}, ${killedAt ? 'then killed' : 'committed'}): it checked the file before the save and wrote it after`,
        });
      } else if (journal.state === 'rolled_back' && killedAt === undefined && journal.createdAt > content.doneAt) {
        candidates.push({
          earliest: journal.createdAt,
          at: journal.updatedAt,
          keeps: true,
          text: `the rollback of ${name} (${journal.createdAt}–${journal.updatedAt}), refused, put its expected content back over the save${kept}`,
        });
      }
      if (killedAt !== undefined && journal.state === 'rolled_back') {
        const recoveries = history.ops.filter((op) => op.recovered.includes(journal.id) && op.end >= content.intentAt - MARGIN_MS);
        const by = recoveries.find((op) => op.start <= content.doneAt + MARGIN_MS) ?? recoveries[0];
        const start = by?.start ?? journal.updatedAt;
        candidates.push({
          earliest: Math.min(start, journal.updatedAt),
          at: Math.min(by?.end ?? journal.updatedAt, journal.updatedAt),
          keeps: true,
          text: `the recovery of ${name} (its process killed at ${killedAt}) in ${by ? `${by.id} (${by.start}–${by.end})` : 'a store open'} put its expected content back over the save${start <= content.doneAt ? ', having read the file before the save' : ''}${kept}`,
        });
      }
    }
    const possible = candidates.filter((candidate) => candidate.earliest <= bound && candidate.at >= content.intentAt - MARGIN_MS).sort((a, b) => a.at - b.at);
    // Only a pin keeps it: a rollback that stored it first is the likelier writer.
    const best = (pinned ? possible.find((candidate) => candidate.keeps) : undefined) ?? possible[0];
    if (best) return best.text;
    return `unknown: ${goneBy ? `by ${goneBy.hi} ${goneBy.what} found the file changed` : 'nothing recorded the path afterwards'}${pinned ? '; only a scan snapshot or another pin keeps it' : ''}`;
  };
  const precious = [
    ...history.initial.map((file) => ({ id: 'initial', path: file.path, hash: file.hash, intentAt: 0, doneAt: 0 })),
    ...history.person.filter((save) => save.written && save.hash !== null).map((save) => ({ ...save, hash: save.hash! })),
  ];
  /**
   * A save a rollback or a Write/Edit took off its path to compare it (a rename, so the path is
   * empty for a few microseconds), and could not put back because the person's own next save of
   * the path landed in that instant and found it empty: that save replaced it, as it would have
   * without Waypoint (it would have gone to the person's trash, the person's own doing); a rollback
   * still keeps a copy under a pin, a refused Write drops it. Not a loss; reported as `superseded`,
   * not failing the run.
   */
  const supersededByOwnSave = (content: (typeof precious)[number]): string | null => {
    const next = history.person
      .filter((save) => save.path === content.path && save.intentAt >= content.doneAt && save.id !== content.id)
      .sort((a, b) => a.intentAt - b.intentAt)[0];
    if (!next?.written || next.displaced.length > 0) return null;
    const holder = journalsAt(content.path).find((journal) => journal.createdAt <= next.doneAt + MARGIN_MS && journal.updatedAt >= content.doneAt - MARGIN_MS);
    if (holder && account.roots.has(content.hash))
      return `taken aside by ${holder.id} (${String(holder.metadata.kind)}, ${holder.createdAt}–${holder.updatedAt}, ${holder.state}) to compare it; the person's next save ${next.id} (${next.intentAt}) found the path empty and replaced it; the rollback kept a copy under a pin`;
    // A Write/Edit refused because it found this save when it took the file aside to compare it
    // (it read this save, or an older content and this save landed before its compare), and the
    // next save landed in that instant: the write ran on past both saves.
    const write = history.ops.find(
      (op) =>
        (op.op === 'tool-write' || op.op === 'tool-edit') &&
        touching(op, content.path) &&
        op.outcome === 'refused' &&
        op.code === 'FILE_CHANGED_DURING_WRITE' &&
        op.start <= next.doneAt + MARGIN_MS &&
        op.end >= next.intentAt - MARGIN_MS &&
        op.end >= content.doneAt - MARGIN_MS,
    );
    return write
      ? `taken aside by ${write.id} (${write.op}, ${write.start}–${write.end}) to compare it; the person's next save ${next.id} (${next.intentAt}) found the path empty and replaced it; the write was refused (FILE_CHANGED_DURING_WRITE)`
      : null;
  };
  for (const content of precious) {
    if (onDisk.has(content.hash) || trashed.has(content.hash)) continue;
    if (account.unreadable.has(content.hash)) continue; // reported above
    if (account.visible.has(content.hash)) continue;
    const pinned = account.roots.has(content.hash);
    const superseded = supersededByOwnSave(content);
    if (superseded) {
      findings.push({
        kind: 'superseded',
        path: content.path,
        hash: content.hash,
        detail: `the person's save ${content.id} (${content.intentAt}–${content.doneAt}) was replaced by the person's own next save`,
        cause: superseded,
        suspects: [],
      });
      continue;
    }
    const cause = causeOf(content, pinned);
    findings.push({
      kind: pinned ? 'hidden' : 'gone',
      path: content.path,
      hash: content.hash,
      detail: `${content.id === 'initial' ? 'the initial file' : `the person's save ${content.id} (${content.intentAt}–${content.doneAt})`} is not on disk, not in the person's trash, and no checkpoint or rewind names it${pinned ? '; only a pin keeps it' : ''}`,
      cause,
      suspects: suspectsOf(content.path, content.intentAt),
    });
  }

  // 3. Every file holds a content somebody wrote, in a state that can be the path's last.
  const known = new Set<string>([...account.visible.keys(), ...account.roots]);
  for (const list of events.values()) for (const event of list) if (event.result !== null && event.result !== 'any') known.add(event.result);
  const editsByNew = new Map<string, string>();
  for (const op of history.ops) for (const intent of op.intents) if (intent.edit) editsByNew.set(intent.edit.new, intent.edit.old);
  const explainedContent = (bytes: Buffer, depth = 0): boolean => {
    if (known.has(hashOf(bytes))) return true;
    const marker = markerOf(bytes.toString('utf8'));
    const old = marker === null ? undefined : editsByNew.get(marker);
    if (old === undefined || depth > 20) return false;
    return explainedContent(Buffer.from(bytes.toString('utf8').replace(`#m:${marker}\n`, `#m:${old}\n`)), depth + 1);
  };
  const paths = new Set([...disk.files.keys(), ...events.keys()].filter((path) => !path.startsWith('(isolated)/')));
  for (const path of paths) {
    const hash = disk.files.get(path) ?? null;
    const bytes = disk.contents.get(path);
    if (bytes && !explainedContent(bytes)) {
      findings.push({
        kind: 'foreign',
        path,
        hash,
        detail: 'the file holds content no process wrote and no record names',
        cause: 'unknown',
        suspects: suspectsOf(path, 0),
      });
      continue;
    }
    const marker = bytes ? markerOf(bytes.toString('utf8')) : null;
    const matches = (event: PathEvent): boolean => (event.marker !== undefined ? event.marker === marker : event.result === 'any' || event.result === hash);
    const list = events.get(path) ?? [];
    const superseded = (event: PathEvent): boolean => list.some((later) => later.certain && later.result !== hash && later.lo > event.hi + MARGIN_MS);
    if (list.some((event) => matches(event) && !superseded(event))) continue;
    const lastMatch = list.filter(matches).sort((a, b) => b.hi - a.hi)[0];
    const later = list
      .filter((event) => event.certain && event.result !== hash && (lastMatch === undefined || event.lo > lastMatch.hi + MARGIN_MS))
      .sort((a, b) => a.lo - b.lo)[0];
    const state = (result: string | null | 'any') => (result === null ? 'absent' : result.slice(0, 12));
    findings.push({
      kind: 'diverged',
      path,
      hash,
      detail: `the file is ${state(hash)}, last made so by ${lastMatch ? `${lastMatch.what} (by ${lastMatch.hi})` : 'nobody known'}; then ${later ? `${later.what} made it ${state(later.result)} (${later.lo}–${later.hi})` : 'it changed'}, and no logged writer, record or recovery made it ${state(hash)} again`,
      cause: ((restorer) =>
        restorer
          ? `the rollback of ${restorer.id} (${String(restorer.metadata.kind)}, ${restorer.state} at ${restorer.updatedAt}) put back its expected content over that later change`
          : 'unknown: see the suspects')(
        journalsAt(path).find(
          (journal) =>
            journal.state === 'rolled_back' &&
            (later === undefined || journal.updatedAt >= later.lo) &&
            journal.items.some((item) => item.path.slice(item.path.indexOf(':') + 1) === path && item.expectedHash === hash),
        ),
      ),
      suspects: suspectsOf(path, lastMatch?.hi ?? 0),
    });
  }

  return {
    findings,
    checked: {
      personSaves: history.person.length,
      initialFiles: history.initial.length,
      files: disk.files.size,
      paths: paths.size,
      checkpoints: account.checkpoints,
      rewinds: account.rewinds,
      blobsRead: account.blobsRead,
      sessions: account.sessions,
    },
    pendingJournals: account.journals.filter((journal) => journal.state === 'pending').map((journal) => journal.id),
    leftovers: [...disk.leftovers, ...disk.other.map((path) => `work/${path} (not a regular file)`)],
  };
}

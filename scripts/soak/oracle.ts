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
  kind: 'gone' | 'hidden' | 'unreadable' | 'foreign' | 'diverged';
  path: string;
  hash: string | null;
  /** What happened, in words, with the evidence. */
  detail: string;
  cause: string;
  suspects: string[];
}

export interface OracleResult {
  findings: Finding[];
  checked: { personSaves: number; initialFiles: number; files: number; paths: number; checkpoints: number; rewinds: number; blobsRead: number; sessions: number };
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
  const describe = (op: OpWindow) => `${op.op} ${op.id} ${op.start}–${op.end} ${op.outcome}${op.code ? ` ${op.code}` : ''}${op.message && op.outcome === 'failed' ? ` (${op.message.slice(0, 120)})` : ''}`;
  const suspectsOf = (path: string, after: number): string[] => [
    ...history.ops.filter((op) => op.end >= after && op.op !== 'open' && touching(op, path) && op.op !== 'rewind-preview').slice(0, 8).map(describe),
    ...journalsAt(path).filter((journal) => journal.updatedAt >= after).map((journal) => `journal ${journal.id} ${journal.state} at ${journal.updatedAt} (${String(journal.metadata.kind)}, pid ${String(journal.metadata.pid)})`),
  ];

  // 1. Every content a record names must read back.
  const sweeps = history.ops.filter((op) => op.op === 'gc' || op.op === 'retention-trim');
  for (const [hash, code] of account.unreadable) {
    const refs = account.visible.get(hash) ?? [];
    const person = history.person.find((save) => save.hash === hash);
    const first = refs.reduce<number | null>((earliest, ref) => (earliest === null || ref.createdAt < earliest ? ref.createdAt : earliest), null);
    // The blob is indexed (durable) before the row that names it commits; a sweep in that gap.
    // Named only by a pin: a rollback stored the person's save and pinned it after a sweep had listed it.
    const pinnedBy = first === null && person ? journalsAt(person.path).filter((journal) => journal.state === 'rolled_back' && journal.updatedAt >= person.doneAt).sort((a, b) => a.updatedAt - b.updatedAt)[0] : undefined;
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
      detail: `${code} (${person ? `the person's save ${person.id}` : 'an agent or initial content'}): ${refs.length ? refs.slice(0, 3).map((ref) => ref.where).join('; ') : 'only a pin or a journal names it'}${refs.length > 3 ? ` (+${refs.length - 3} more)` : ''}`,
      cause:
        racing.length === 0
          ? 'unknown: no gc ran while its first record (or pin) was being written'
          : `swept by ${racing.map((op) => `${op.op} ${op.id} (${op.start}–${op.end})`).join(', ')}, which ran while ${pinnedBy ? `the rollback of ${pinnedBy.id} stored it and pinned it (at ${pinnedBy.updatedAt})` : 'the first record naming it was being written'}`,
      suspects: racing.map(describe),
    });
  }

  // 2. Every content the person saved, and every initial file, is kept somewhere.
  const precious = [
    ...history.initial.map((file) => ({ id: 'initial', path: file.path, hash: file.hash, intentAt: 0, doneAt: 0 })),
    ...history.person.filter((save) => save.written && save.hash !== null).map((save) => ({ ...save, hash: save.hash! })),
  ];
  for (const content of precious) {
    if (onDisk.has(content.hash) || trashed.has(content.hash)) continue;
    if (account.unreadable.has(content.hash)) continue; // reported above
    if (account.visible.has(content.hash)) continue;
    const pinned = account.roots.has(content.hash);
    const preservedBy = history.ops.find((op) => op.preserved.some((entry) => entry.hash === content.hash));
    const rolledBack = journalsAt(content.path).filter((journal) => journal.state === 'rolled_back' && journal.updatedAt >= content.intentAt).sort((a, b) => a.updatedAt - b.updatedAt);
    const inFlight = history.ops.filter((op) => (op.op === 'tool-write' || op.op === 'tool-edit') && touching(op, content.path) && op.start < content.doneAt && op.end > content.intentAt);
    const killedWrite = history.ops.find((op) => (op.op === 'tool-write' || op.op === 'tool-edit') && !op.ended && touching(op, content.path) && op.start >= content.intentAt);
    // A rewind (or its rollback) whose read of the file came before the save and whose write came after.
    const straddling = journalsAt(content.path).filter((journal) => journal.createdAt <= content.doneAt + MARGIN_MS && journal.updatedAt >= content.intentAt - MARGIN_MS);
    const cause = preservedBy
      ? `recovery in ${preservedBy.id} overwrote it (kept only as a preserved pin)`
      : inFlight.length > 0
        ? `saved while ${inFlight.map((op) => op.id).join(', ')} (a Write/Edit of the same file) was in flight: the Write read the file before the save and replaced it after, without reading it again`
        : pinned && rolledBack.length > 0
          ? `the rollback of ${rolledBack[0]!.id} (${String(rolledBack[0]!.metadata.kind)}, refused at ${rolledBack[0]!.updatedAt}) put its expected content back over the save (kept only as a "preserved" pin)`
          : killedWrite
            ? `${killedWrite.id}, a Write of the same file, was killed after it replaced the file and before its checkpoint was recorded`
            : straddling.length > 0
              ? `the save landed while ${straddling[0]!.id} (${String(straddling[0]!.metadata.kind)}, ${straddling[0]!.state} at ${straddling[0]!.updatedAt}) was applying to the same file: it read the file before the save${straddling[0]!.state === 'rolled_back' ? ' (keeping what it found)' : ''} and wrote it after without reading it again`
              : pinned
                ? 'unknown: only a scan snapshot or another pin keeps it'
                : 'unknown: see the suspects';
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
  const events = pathEvents(history, account.records, account.journals);
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
      findings.push({ kind: 'foreign', path, hash, detail: 'the file holds content no process wrote and no record names', cause: 'unknown', suspects: suspectsOf(path, 0) });
      continue;
    }
    const marker = bytes ? markerOf(bytes.toString('utf8')) : null;
    const matches = (event: PathEvent): boolean => (event.marker !== undefined ? event.marker === marker : event.result === 'any' || event.result === hash);
    const list = events.get(path) ?? [];
    const superseded = (event: PathEvent): boolean => list.some((later) => later.certain && later.result !== hash && later.lo > event.hi + MARGIN_MS);
    if (list.some((event) => matches(event) && !superseded(event))) continue;
    const lastMatch = list.filter(matches).sort((a, b) => b.hi - a.hi)[0];
    const later = list.filter((event) => event.certain && event.result !== hash && (lastMatch === undefined || event.lo > lastMatch.hi + MARGIN_MS)).sort((a, b) => a.lo - b.lo)[0];
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

// The logs turned into what the oracle reasons about: each operation's time window, and for each
// path the states someone (the person, an agent writer, the store's records, a recovery) put there.
import type { Journal } from './engine.js';
import type { StoreRecord } from './oracle-account.js';
import type { Intent, LogRecord } from './soak-log.js';

export interface OpWindow {
  id: string;
  op: string;
  proc: string;
  start: number;
  /** The end record's time; for a killed operation, the kill; else the end of the run. */
  end: number;
  ended: boolean;
  outcome: 'ok' | 'refused' | 'failed' | 'killed';
  code?: string;
  message?: string;
  paths: string[] | null;
  intents: Intent[];
  checkpointIds: string[];
  rewindIds: string[];
  recovered: string[];
  preserved: Array<{ path: string; hash: string }>;
}

/**
 * One state a path may have had: `result` (a hash, null for absent, `any` when unknown) during
 * `[lo, hi]`. `certain` states surely happened (the person's finished saves, the initial files,
 * the store's records); the others (an agent writer's intent, a recovery) may have.
 */
export interface PathEvent {
  result: string | null | 'any';
  /** An Edit's new marker: any content whose first line is `#m:<marker>`. */
  marker?: string;
  lo: number;
  hi: number;
  certain: boolean;
  what: string;
}

export interface SoakHistory {
  ops: OpWindow[];
  kills: Array<{ victim: string; pid: number; t: number; final: boolean }>;
  person: Array<{ id: string; path: string; hash: string | null; intentAt: number; doneAt: number; written: boolean; displaced: string[] }>;
  initial: Array<{ path: string; hash: string }>;
  exits: Array<{ proc: string; code: number | null; signal: string | null }>;
  runEnd: number;
}

export function buildHistory(records: readonly LogRecord[], runEnd: number): SoakHistory {
  const kills = records.flatMap((record) => (record.type === 'kill' ? [{ victim: record.victim, pid: record.pid, t: record.t, final: record.final }] : []));
  const killedAt = new Map(kills.map((kill) => [kill.victim, kill.t]));
  const ends = new Map(records.flatMap((record) => (record.type === 'end' ? [[record.id, record] as const] : [])));
  const intents = new Map(records.flatMap((record) => (record.type === 'person-intent' ? [[record.id, record] as const] : [])));
  const ops: OpWindow[] = [];
  for (const record of records) {
    if (record.type !== 'start') continue;
    const end = ends.get(record.id);
    ops.push({
      id: record.id,
      op: record.op,
      proc: record.proc,
      start: record.t,
      end: end?.t ?? killedAt.get(record.proc) ?? runEnd,
      ended: end !== undefined,
      outcome: end?.outcome ?? 'killed',
      ...(end?.code === undefined ? {} : { code: end.code }),
      ...(end?.message === undefined ? {} : { message: end.message }),
      paths: record.paths,
      intents: record.intents,
      checkpointIds: end?.checkpointIds ?? [],
      rewindIds: end?.rewindIds ?? [],
      recovered: end?.recovered ?? [],
      preserved: end?.preserved ?? [],
    });
  }
  const person = records.flatMap((record) =>
    record.type === 'person-done'
      ? [
          {
            id: record.id,
            path: record.path,
            hash: record.hash,
            intentAt: intents.get(record.id)?.t ?? record.t,
            doneAt: record.t,
            written: record.written,
            displaced: record.displaced,
          },
        ]
      : [],
  );
  const initial = records.flatMap((record) => (record.type === 'initial' ? [{ path: record.path, hash: record.hash }] : []));
  const exits = records.flatMap((record) => (record.type === 'exit' ? [{ proc: record.proc, code: record.code, signal: record.signal }] : []));
  return { ops, kills, person, initial, exits, runEnd };
}

/** How long before its row a store record's change may have happened, when no log names its operation. */
const UNMATCHED_RECORD_SPAN_MS = 2000;

/** Every state each path may have had, from the logs, the store's records and the journals recoveries rolled back. */
export function pathEvents(history: SoakHistory, records: readonly StoreRecord[], journals: readonly Journal[]): Map<string, PathEvent[]> {
  const events = new Map<string, PathEvent[]>();
  const add = (path: string, event: PathEvent): void => {
    const list = events.get(path) ?? [];
    list.push(event);
    events.set(path, list);
  };
  for (const file of history.initial) add(file.path, { result: file.hash, lo: 0, hi: 0, certain: true, what: 'initial file' });
  for (const save of history.person) {
    if (save.written) add(save.path, { result: save.hash, lo: save.intentAt, hi: save.doneAt, certain: true, what: `person save ${save.id}` });
  }
  const startOf = new Map<string, number>();
  for (const op of history.ops) for (const id of [...op.checkpointIds, ...op.rewindIds]) startOf.set(id, op.start);
  for (const record of records) {
    add(record.path, {
      result: record.result,
      lo: startOf.get(record.id) ?? record.createdAt - UNMATCHED_RECORD_SPAN_MS,
      hi: record.createdAt,
      certain: true,
      what: record.detail,
    });
  }
  const byId = new Map(journals.map((journal) => [journal.id, journal]));
  for (const op of history.ops) {
    const what = `${op.op} ${op.id} (${op.outcome}${op.code ? ` ${op.code}` : ''})`;
    for (const intent of op.intents) {
      add(intent.path, {
        result: intent.edit ? 'any' : intent.hash,
        ...(intent.edit ? { marker: intent.edit.new } : {}),
        lo: op.start,
        hi: op.end,
        certain: false,
        what,
      });
    }
    if (op.op === 'open') {
      if (!op.ended)
        for (const path of events.keys()) add(path, { result: 'any', lo: op.start, hi: op.end, certain: false, what: `${what}: a recovery killed midway` });
      for (const id of op.recovered) {
        for (const item of byId.get(id)?.items ?? []) {
          add(item.path.slice(item.path.indexOf(':') + 1), {
            result: item.expectedHash,
            lo: op.start,
            hi: op.end,
            certain: false,
            what: `${what}: recovery of ${id}`,
          });
        }
      }
    }
  }
  return events;
}

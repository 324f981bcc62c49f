import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/index.js';
import { FileRewinder, type FileRewindResult } from '../../src/rewind/files/index.js';
import { WaypointError } from '../../src/model/index.js';
import { RewindHarness, type TurnRef } from '../fixtures/rewind-harness.js';
import { RewindWorker, seededRandom } from '../fixtures/rewind-worker-client.js';
import type { WorkerReply, WorkerRequest } from '../fixtures/rewind-worker.js';

// Several processes rewind one session at the same instant (cascades from different messages,
// `latest`), round after round. Whatever the interleaving, the files and the ledger end as one
// serial order of those rewinds leaves them, and each process's report is what that rewind does
// in that order: nobody reports success for work another one undid. The serial outcomes are
// computed by replaying every order on a fresh copy of the same history.
const ROUNDS = 8;
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));

type Op = { kind: 'cascade'; turn: number } | { kind: 'latest' };
interface History {
  session: Session;
  turns: TurnRef[];
  /** Checkpoint id → a label that is the same in every copy of the history ("T2:a.txt"). */
  labels: Map<string, string>;
}
interface Outcome {
  reports: string[];
  files: Record<string, string>;
  rewound: string[];
}

/** Three turns over four files; the same contents in every copy. */
async function buildHistory(h: RewindHarness, round: number): Promise<History> {
  const session = round === -1 ? h.session : await h.store.createSession({ workdir: h.work, title: `round ${round}` });
  const dir = `r${Math.max(round, 0)}`;
  for (const name of ['a', 'c', 'd']) h.put(`${dir}/${name}.txt`, `${name}0\n`);
  const turns: TurnRef[] = [];
  const plan: Array<Array<[string, string]>> = [
    [
      ['a', 'a1'],
      ['b', 'b1'],
    ],
    [
      ['a', 'a2'],
      ['c', 'c1'],
    ],
    [
      ['d', 'd1'],
      ['b', 'b2'],
    ],
  ];
  const labels = new Map<string, string>();
  for (const [index, writes] of plan.entries()) {
    const turn = await h.turn(`turn ${index + 1}`, session);
    turns.push(turn);
    for (const [name, content] of writes) {
      const checkpoint = await h.recordWrite(turn, `${dir}/${name}.txt`, `${content}\n`, { session });
      labels.set(checkpoint.id, `T${index + 1}:${name}`);
    }
  }
  return { session, turns, labels };
}

function describeOp(op: Op): string {
  return op.kind === 'latest' ? 'latest' : `cascade T${op.turn + 1}`;
}

function report(reply: WorkerReply | { ok: true; checkpointIds: string[] } | { ok: false; code: string }, labels: Map<string, string>): string {
  if ('code' in reply) return `error ${reply.code}`;
  if (!('checkpointIds' in reply)) return 'person';
  return `undid ${reply.checkpointIds
    .map((id) => labels.get(id) ?? id)
    .sort()
    .join(',')}`;
}

async function rewoundLabels(store: RewindHarness['store'], history: History): Promise<string[]> {
  const rewinder = new FileRewinder({ store });
  const rewinds = await rewinder.listRewinds(history.session.id);
  const latest = new Map<string, boolean>();
  for (const rewind of rewinds) for (const id of rewind.checkpointIds) latest.set(id, rewind.action === 'rewind');
  return [...latest]
    .filter(([, rewound]) => rewound)
    .map(([id]) => history.labels.get(id)!)
    .sort();
}

function roundFiles(h: RewindHarness, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(h.path(dir)).sort()) out[name] = h.read(`${dir}/${name}`)!;
  return out;
}

/** What running `ops` one after another, in `order`, does to a fresh copy of the history. */
async function serialOutcome(ops: Op[], order: number[]): Promise<Outcome> {
  const h = await RewindHarness.create('waypoint-serial-');
  try {
    const history = await buildHistory(h, -1);
    const rewinder = new FileRewinder({ store: h.store });
    const reports: string[] = new Array(ops.length);
    for (const index of order) {
      const op = ops[index]!;
      let result: FileRewindResult | { ok: false; code: string };
      try {
        result =
          op.kind === 'latest'
            ? await rewinder.restoreLatest(history.session.id)
            : await rewinder.cascade(history.session.id, history.turns[op.turn]!.messageId);
      } catch (error) {
        if (!WaypointError.is(error)) throw error;
        result = { ok: false, code: error.code };
      }
      reports[index] = report('code' in result ? result : { ok: true, checkpointIds: result.checkpointIds }, history.labels);
    }
    return { reports, files: roundFiles(h, 'r0'), rewound: await rewoundLabels(h.store, history) };
  } finally {
    await h.cleanup();
  }
}

function permutations(count: number): number[][] {
  if (count === 1) return [[0]];
  return permutations(count - 1).flatMap((rest) => Array.from({ length: count }, (_, at) => [...rest.slice(0, at), count - 1, ...rest.slice(at)]));
}

describe('concurrent rewinds of one session (separate processes)', () => {
  let h: RewindHarness;
  let workers: RewindWorker[];
  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-concurrent-');
    workers = await Promise.all([0, 1, 2].map(() => RewindWorker.start(h.storePath)));
  });
  afterAll(async () => {
    for (const worker of workers ?? []) worker.stop();
    await h?.cleanup();
  });

  it(`${ROUNDS} rounds: the outcome is one serial order's, and every report matches it (seed printed on failure)`, async () => {
    const random = seededRandom(seed);
    const seen = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const count = 2 + Math.floor(random() * 2);
      const ops: Op[] = Array.from({ length: count }, (_, index) =>
        index === 0 || random() < 0.5 ? { kind: 'cascade', turn: Math.floor(random() * 3) } : { kind: 'latest' },
      );
      const delays = ops.map(() => random() * 3);
      const context = `seed ${seed} (rerun with WAYPOINT_TEST_SEED=${seed}), round ${round}: ${ops.map(describeOp).join(' | ')}`;
      const history = await buildHistory(h, round);
      const requests: WorkerRequest[] = ops.map((op, index) =>
        op.kind === 'latest'
          ? { op: 'latest', sessionId: history.session.id, delayMs: delays[index]! }
          : { op: 'cascade', sessionId: history.session.id, messageId: history.turns[op.turn]!.messageId, delayMs: delays[index]! },
      );
      const replies = await Promise.all(requests.map((request, index) => workers[index]!.send(request)));
      const actual: Outcome = {
        reports: replies.map((reply) => report(reply, history.labels)),
        files: roundFiles(h, `r${round}`),
        rewound: await rewoundLabels(h.store, history),
      };
      const serial = await Promise.all(permutations(ops.length).map(async (order) => ({ order, outcome: await serialOutcome(ops, order) })));
      const match = serial.find(({ outcome }) => JSON.stringify(outcome) === JSON.stringify(actual));
      expect(match, `${context}\nactual ${JSON.stringify(actual, null, 1)}\nserial orders ${JSON.stringify(serial, null, 1)}`).toBeDefined();
      const key = match!.order.join('');
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    console.log(`concurrent rewinds (seed ${seed}): serial orders matched ${JSON.stringify(Object.fromEntries(seen))}`);
  }, 120_000);
});

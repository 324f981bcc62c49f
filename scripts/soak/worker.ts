// One soak worker: opens the store (which runs recovery, logged like any writer), then loops over
// random operations on the shared sessions until the stop file appears. The main process SIGKILLs
// workers at random instants and starts them again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openWaypoint, SessionForker, type Session } from './engine.js';
import { layoutOf, Random, sleep, type ProcessConfig } from './soak-env.js';
import { SoakLog } from './soak-log.js';
import { toolTurn, shellTurn } from './worker-capture-ops.js';
import { closeDeadTurns, isPlaceholder, logged, type WorkerContext } from './worker-context.js';
import { checkedRewindOp, redoOp, rewindOp } from './worker-rewind-ops.js';
import { gcOp, isolatedForkOp, retentionOp, sharedForkOp } from './worker-store-ops.js';

const config = JSON.parse(process.argv[2]!) as ProcessConfig;
const layout = layoutOf(config.root);
const log = new SoakLog(join(layout.logs, `${config.proc}.jsonl`), config.proc);
const random = new Random(config.seed);

const opened: { waypoint?: Awaited<ReturnType<typeof openWaypoint>> } = {};
await logged({ log, proc: config.proc }, 'open', null, null, [], async () => {
  opened.waypoint = await openWaypoint({ path: layout.storePath });
  const report = opened.waypoint.recovery;
  const recovered = report?.recovered ?? [];
  // A journal whose files could not all be put back was still partly rolled back: logged as well.
  return {
    recovered: [...recovered, ...(report?.failed ?? [])].map((journal) => journal.journalId),
    preserved: recovered.flatMap((journal) => journal.preserved),
  };
});
if (!opened.waypoint) process.exit(3);
const waypoint = opened.waypoint;

let pool: Session[] = [];
let poolAge = Infinity;
const context: WorkerContext = {
  waypoint,
  forker: new SessionForker({ store: waypoint.store, blobs: waypoint.blobs }),
  layout,
  random,
  log,
  proc: config.proc,
  paths: config.paths,
  async sharedSessions() {
    if (poolAge++ > 15) {
      pool = (await waypoint.store.listSessions()).filter((session) => session.workdir === layout.work && !isPlaceholder(session));
      poolAge = 0;
    }
    return pool;
  },
};

await closeDeadTurns(context).catch(() => undefined);

const weights = { tool: 30, shell: 14, rewind: 14, checked: 10, redo: 7, forkShared: 4, forkIsolated: 3, gc: 7, retention: 3 };
const leftOut: Record<string, Array<keyof typeof weights>> = {
  gc: ['gc', 'retention'],
  forks: ['forkShared', 'forkIsolated'],
  shell: ['shell'],
  rewinds: ['rewind', 'checked', 'redo'],
};
for (const part of config.without) for (const op of leftOut[part] ?? []) weights[op] = 0;
while (!existsSync(layout.stopFile)) {
  const sessions = await context.sharedSessions();
  const session = random.pick(sessions);
  const op = random.weighted(weights);
  try {
    if (op === 'tool') await toolTurn(context, session);
    else if (op === 'shell') await shellTurn(context, session);
    else if (op === 'rewind') await rewindOp(context, session);
    else if (op === 'checked') await checkedRewindOp(context, session);
    else if (op === 'redo') await redoOp(context, session);
    else if (op === 'forkShared') await sharedForkOp(context, session);
    else if (op === 'forkIsolated') await isolatedForkOp(context, session);
    else if (op === 'gc') await gcOp(context);
    else await retentionOp(context);
  } catch (error) {
    // A read the operation needed to choose its target failed (it wrote nothing): counted too.
    await logged(context, `choose-${op}`, session, [], [], () => Promise.reject(error));
  }
  await sleep(random.int(3));
}
await waypoint.close();
log.close();

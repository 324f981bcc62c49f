/**
 * `npx tsx scripts/soak/main.ts [--seconds 60] [--workers 4] [--seed N] [--kill-every ms] [--without …] [--json]`: the
 * concurrency soak. N worker processes share one store and one workspace (tool writes and edits,
 * shell commands under capture, direct / latest / cascade / turn rewinds, checked preview/apply
 * with force and merge, redos, shared and isolated forks, gc and retention) while a person process
 * edits and deletes the same files directly, and workers are SIGKILLed at random instants and
 * started again. Then the store is opened (recovery runs) and checked against the logs every
 * process kept (see oracle.ts). Exits 0 only when nothing was lost and every check passed: 1 when
 * content was lost, 2 when only a consistency check failed (a diverged file, a pending journal,
 * leftover temp files). The seed is printed at the start and on failure; it fixes every random
 * choice, though not how the processes interleave. `--without` leaves parts out (the person, the
 * kills, gc and retention, forks, shell commands, rewinds), to tell which one a finding needs. Not
 * part of `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openWaypoint, recoverJournals } from '../../src/index.js';
import { readStoreAccount } from './oracle-account.js';
import { readDisk } from './oracle-disk.js';
import { runOracle } from './oracle.js';
import { deriveSeed, Random, releaseLocksOf, sleep, SOAK_PATHS, type ProcessConfig } from './soak-env.js';
import { buildHistory } from './soak-history.js';
import { readLogs, SoakLog } from './soak-log.js';
import { buildReport, renderReport } from './soak-report.js';
import { createSoak } from './soak-setup.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    workers: { type: 'string', default: '4' },
    seed: { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'kill-every': { type: 'string', default: '1000' },
    without: { type: 'string', default: '' },
    dir: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const workers = Number(values.workers);
const killEvery = Number(values['kill-every']);
/** Parts left out, to tell which one causes a finding: person, kills, gc, forks, shell, rewinds. */
const without = values.without.split(',').filter((part) => part !== '');
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const parts = ['person', 'kills', 'gc', 'forks', 'shell', 'rewinds'];
if (without.some((part) => !parts.includes(part))) {
  console.error(`--without takes a comma-separated list of: ${parts.join(', ')}`);
  process.exit(64);
}
if (!(seconds > 0) || !(killEvery > 0) || !Number.isInteger(workers) || workers < 1 || !Number.isInteger(seed)) {
  console.error('usage: scripts/soak/main.ts [--seconds 60] [--workers 4] [--seed N] [--kill-every 1000] [--without person,kills,gc,forks,shell,rewinds] [--json] [--keep] [--dir <parent>]');
  process.exit(64);
}
const say = (line: string): void => void process.stderr.write(`${line}\n`);
say(`soak seed ${seed}: ${workers} workers, ${seconds} s${without.length ? `, without ${without.join(', ')}` : ''}`);

const layout = await createSoak(seed, values.dir);
const log = new SoakLog(join(layout.logs, 'main.jsonl'), 'main');
const random = new Random(deriveSeed(seed, 'main'));
const here = import.meta.dirname;

interface Running {
  proc: string;
  child: ChildProcess;
  exited: Promise<void>;
  killed: boolean;
}

const running = new Map<string, Running>();
let restarts = 0;
let stopping = false;

function start(role: 'worker' | 'person', slot: string, incarnation: number): Running {
  const proc = role === 'person' ? 'person' : `w${slot}.${incarnation}`;
  const config: ProcessConfig = { root: layout.root, proc, seed: deriveSeed(seed, proc), paths: SOAK_PATHS, without };
  const stderr = openSync(join(layout.logs, `${proc}.stderr`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, `${role}.ts`), JSON.stringify(config)], { detached: true, stdio: ['ignore', stderr, stderr] });
  log.write({ type: 'spawn', pid: child.pid! });
  const entry: Running = {
    proc,
    child,
    killed: false,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        writeExit(proc, code, signal);
        resolve();
      }),
    ),
  };
  running.set(slot, entry);
  return entry;
}

function watch(slot: string, entry: Running, incarnation: number): void {
  void entry.exited.then(async () => {
    releaseLocksOf(layout, entry.child.pid!);
    if (stopping || slot === 'person') return;
    if (!entry.killed) say(`worker ${entry.proc} exited on its own (see logs/${entry.proc}.stderr); starting it again`);
    await sleep(random.between(20, 200));
    if (stopping) return;
    restarts++;
    const next = start('worker', slot, incarnation + 1);
    watch(slot, next, incarnation + 1);
  });
}

/** An `exit` record names the process it is about. */
function writeExit(proc: string, code: number | null, signal: string | null): void {
  const named = new SoakLog(join(layout.logs, 'exits.jsonl'), proc);
  named.write({ type: 'exit', code, signal });
  named.close();
}

if (!without.includes('person')) watch('person', start('person', 'person', 0), 0);
for (let slot = 0; slot < workers; slot++) watch(String(slot), start('worker', String(slot), 0), 0);

const deadline = Date.now() + seconds * 1000;
while (Date.now() < deadline) {
  await sleep(without.includes('kills') ? Math.max(0, deadline - Date.now()) : random.between(0.3, 1.7) * killEvery);
  if (Date.now() >= deadline) break;
  const slot = String(random.int(workers));
  const victim = running.get(slot);
  // Only once it began opening the store (its log exists): a kill while Node starts tests nothing.
  if (!victim || victim.killed || victim.child.exitCode !== null || !existsSync(join(layout.logs, `${victim.proc}.jsonl`))) continue;
  victim.killed = true;
  process.kill(-victim.child.pid!, 'SIGKILL');
  log.write({ type: 'kill', victim: victim.proc, pid: victim.child.pid!, final: false });
}

stopping = true;
writeFileSync(layout.stopFile, '');
const stopBy = Date.now() + 20_000;
for (const entry of running.values()) {
  const left = stopBy - Date.now();
  const done = await Promise.race([entry.exited.then(() => true), sleep(Math.max(0, left)).then(() => false)]);
  if (!done) {
    process.kill(-entry.child.pid!, 'SIGKILL');
    log.write({ type: 'kill', victim: entry.proc, pid: entry.child.pid!, final: true });
    await entry.exited;
  }
}

// The check: open the store as any later process would (recovery runs), then compare.
const checkStart = Date.now();
log.write({ type: 'start', id: 'main-open', op: 'open', session: null, paths: null, intents: [] });
const waypoint = await openWaypoint({ path: layout.storePath });
const report = waypoint.recovery!;
// Every soak process is gone: a journal skipped as "live" names a reused pid, so roll it back too.
const again = report.skipped.length > 0 ? await recoverJournals(waypoint.store, undefined, { blobs: waypoint.blobs, includeLive: true }) : null;
const recovered = [...report.recovered, ...(again?.recovered ?? [])];
log.write({ type: 'end', id: 'main-open', outcome: 'ok', recovered: recovered.map((journal) => journal.journalId), preserved: recovered.flatMap((journal) => journal.preserved) });
const account = await readStoreAccount(waypoint, layout.work);
await waypoint.close();
log.close();
const disk = readDisk(layout);
const history = buildHistory(readLogs(layout.logs), checkStart);
const oracle = runOracle(history, account, disk);
const result = buildReport({
  seed,
  seconds,
  workers,
  without,
  root: layout.root,
  history,
  oracle,
  restarts,
  recovery: { recovered: recovered.length, skipped: (again ?? report).skipped.length, failed: report.failed.length + (again?.failed.length ?? 0) },
});
console.log(values.json ? JSON.stringify(result, null, 2) : renderReport(result));
const failedCheck = oracle.pendingJournals.length > 0 || oracle.leftovers.length > 0 || result.counts.diverged! > 0;
if (result.lost > 0 || failedCheck) say(`seed ${seed}: ${result.lost} lost, ${result.counts.diverged} diverged; the run is kept in ${layout.root}`);
else if (!values.keep) rmSync(layout.root, { recursive: true, force: true });
process.exit(result.lost > 0 ? 1 : failedCheck ? 2 : 0);


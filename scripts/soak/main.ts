/**
 * `npx tsx scripts/soak/main.ts [--seconds 60] [--workers 4] [--seed N] [--kill-every ms] [--without …] [--json]`:
 * the concurrency soak. N worker processes share one store and one workspace (tool writes and
 * edits, shell commands under capture, direct / latest / cascade / turn rewinds, checked
 * preview/apply with force and merge, redos, shared and isolated forks, gc and retention) while a
 * person process edits and deletes the same files directly, and workers are SIGKILLed at random
 * instants and started again. Then the store is opened (recovery runs) and checked against the
 * logs every process kept (see oracle.ts). Exits 0 only when nothing was lost and every check
 * passed; 1 when content was lost (or is kept only by a pin no command shows); 2 when only a
 * consistency check failed (a diverged file, a pending journal, leftover temp files). The seed is
 * printed at the start and on failure; it fixes every random choice, though not how the processes
 * interleave. `--without` leaves parts out (the person, the kills, gc and retention, forks, shell
 * commands, rewinds), to tell which one a finding needs; `--check <dir>` checks a kept run again.
 * Not part of `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deriveSeed, layoutOf, Random, releaseLocksOf, sleep, SOAK_PATHS, type ProcessConfig } from './soak-env.js';
import { checkSoak, saveSettings } from './soak-check.js';
import { SoakLog } from './soak-log.js';
import { renderReport, type SoakReport } from './soak-report.js';
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
    check: { type: 'string' },
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
  console.error(
    'usage: scripts/soak/main.ts [--seconds 60] [--workers 4] [--seed N] [--kill-every 1000] [--without person,kills,gc,forks,shell,rewinds] [--json] [--keep] [--dir <parent>]',
  );
  process.exit(64);
}
const say = (line: string): void => void process.stderr.write(`${line}\n`);
if (values.check !== undefined) finish(await checkSoak(layoutOf(values.check)));
say(`soak seed ${seed}: ${workers} workers, ${seconds} s${without.length ? `, without ${without.join(', ')}` : ''}`);

const layout = await createSoak(seed, values.dir);
saveSettings(layout, { seed, seconds, workers, without });
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
let stopping = false;

function start(role: 'worker' | 'person', slot: string, incarnation: number): Running {
  const proc = role === 'person' ? 'person' : `w${slot}.${incarnation}`;
  const config: ProcessConfig = { root: layout.root, proc, seed: deriveSeed(seed, proc), paths: SOAK_PATHS, without };
  const stderr = openSync(join(layout.logs, `${proc}.stderr`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, `${role}.ts`), JSON.stringify(config)], {
    detached: true,
    stdio: ['ignore', stderr, stderr],
  });
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

const result = await checkSoak(layout);
finish(result);

function finish(report: SoakReport): never {
  console.log(values.json ? JSON.stringify(report, null, 2) : renderReport(report));
  const failedCheck = report.pendingJournals.length > 0 || report.leftovers.length > 0 || report.counts.diverged! > 0;
  const lost = report.lost + report.hidden;
  if (lost > 0 || failedCheck)
    say(
      `seed ${report.seed}: ${report.lost} lost, ${report.hidden} hidden, ${report.counts.diverged} diverged; the run is kept in ${report.root} (check it again: --check ${report.root})`,
    );
  else if (!values.keep && values.check === undefined) rmSync(report.root, { recursive: true, force: true });
  process.exit(lost > 0 ? 1 : failedCheck ? 2 : 0);
}

/**
 * A generated git history (built with git: ~2k files, a large lock file changed by a few lines in
 * most commits, renames, deletes, binaries, a mode change) replayed commit by commit as agent turns
 * through Waypoint (tool writes and shell commands under scans, as in test/replay), with a shadow
 * git repository committing the same workspace after every turn (`git add -A` + `commit`, the way
 * Cline, Gemini CLI and OpenCode keep one).
 *
 * - Store size: the Waypoint store (database with WAL, blob packs: what `waypoint usage` counts) as
 *   written, after the compress pass the runtime runs at idle and after `waypoint gc`, against the shadow
 *   repository as written, after plain `git gc` and after `git gc --aggressive`. Goal: smaller than
 *   plain `git gc`.
 * - Undo of 20 turns: a cascade rewind of the last 20 turns (journaled and durable: every file and
 *   directory fsynced, as the product does), against `git reset --hard <20 commits back>` +
 *   `git clean -fd` in a checkout of the same history (git does not fsync; also reported with a
 *   `sync -f` after it, the cost of making git's result durable). Each round is undone by a redo
 *   (Waypoint) or a reset to the last commit (git), untimed, and starts after a `sync -f` so no
 *   contender's fsyncs flush another's writes. Goal: ≥ 2× faster than git. Also reported against
 *   the disk's floor (bench/durable-floor.ts): the same file changes made durable with plain writes
 *   and fsyncs, no Waypoint code; and against the floor of a safe undo, the same with each path
 *   changed by compare-and-replace (a save made meanwhile is never overwritten), as the undo must.
 *   An undo after a redo gets back the very files the redo replaced (`KeptFiles`); each round also
 *   times an undo with nothing kept, as the first undo after the agent's turns is, against the
 *   same git runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collectGarbage, rewind, redo, storeUsage } from '../../src/operations/index.js';
import { buildGitHistory, git, random } from '../../test/replay/git-history.js';
import { openReplay, type TurnMode } from '../../test/replay/replay-driver.js';
import { keptFilesOf } from '../../src/workspace/index.js';
import { durableFloor, floorChanges } from '../durable-floor.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';

const SUITE = 'replay';
const MODES: readonly TurnMode[] = ['tool', 'checkout', 'apply'];
const UNDO_TURNS = 20;
const ROUNDS = 11;

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function elapsed(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function run(context: BenchContext): Promise<BenchResult[]> {
  const dir = context.tempDir('waypoint-bench-replay-');
  const commits = context.quick ? 40 : 150;
  const history = buildGitHistory(dir, { seed: 150, commits, files: context.quick ? 300 : 2000, lockLines: context.quick ? 3000 : 14000 });
  const replay = await openReplay(dir, history);
  const shadow = join(dir, 'shadow.git');
  execFileSync('git', ['init', '-q', '--bare', shadow]);
  const shadowGit = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${shadow}`, `--work-tree=${replay.ws}`, '-c', 'user.name=s', '-c', 'user.email=s@s', ...args], { stdio: 'ignore' });
  shadowGit('add', '-A');
  shadowGit('commit', '-q', '--allow-empty', '-m', 'start');
  const pickMode = random(151);
  for (let index = 1; index <= commits; index++) {
    await replay.turn(MODES[Math.floor(pickMode() * MODES.length)]!);
    shadowGit('add', '-A');
    shadowGit('commit', '-q', '--allow-empty', '-m', `turn ${index}`);
  }
  const results: BenchResult[] = [];
  const usage = async () => (await storeUsage({ waypoint: replay.waypoint })).store.totalBytes;
  await replay.reopen();
  const written = await usage();
  await replay.waypoint.blobs.compress();
  await replay.reopen();
  const compressed = await usage();
  await collectGarbage({ waypoint: replay.waypoint }, {});
  await replay.reopen();
  const collected = await usage();
  // At rest, as git's repository is measured: every file in the store's directory once the store is
  // closed (SQLite checkpoints the WAL on the last close and removes it and the shared-memory file,
  // which exist only while a connection is open and hold no data of their own).
  await replay.close();
  const atRest = directoryBytes(dirname(replay.storePath));
  const leftOpen = readdirSync(dirname(replay.storePath)).filter((name) => name.endsWith('-wal') || name.endsWith('-shm'));
  await replay.reopen();
  const shadowWritten = directoryBytes(shadow);
  execFileSync('git', [`--git-dir=${shadow}`, 'gc', '-q'], { stdio: 'ignore' });
  const shadowGc = directoryBytes(shadow);
  execFileSync('git', [`--git-dir=${shadow}`, 'gc', '-q', '--aggressive'], { stdio: 'ignore' });
  const shadowAggressive = directoryBytes(shadow);
  const report = await storeUsage({ waypoint: replay.waypoint });
  const note = `${commits} turns over ${git(history.repo, ['ls-tree', '-r', '--name-only', 'HEAD']).toString().split('\n').length - 1} files`;
  results.push(
    {
      suite: SUITE,
      name: 'store as written vs shadow git as written',
      value: written,
      unit: 'bytes',
      baseline: { name: 'shadow git', value: shadowWritten },
      ratio: written / shadowWritten,
      note,
    },
    {
      suite: SUITE,
      name: 'store after compress vs shadow git after git gc',
      value: compressed,
      unit: 'bytes',
      baseline: { name: 'git gc', value: shadowGc },
      ratio: compressed / shadowGc,
      note: `before waypoint gc (its sweep and one-time re-encoding), which is what git gc is compared with below; blobs ${report.blobs.storedBytes} B stored of ${report.blobs.rawBytes} B content; database ${report.store.databaseBytes} B`,
    },
    {
      suite: SUITE,
      name: 'store at rest after waypoint gc vs shadow git after git gc',
      value: atRest,
      unit: 'bytes',
      baseline: { name: 'git gc', value: shadowGc },
      ratio: atRest / shadowGc,
      goal: '≤ 1 (smaller than git gc)',
      met: atRest <= shadowGc,
      note: `every file in the closed store's directory${leftOpen.length > 0 ? ` (left after close: ${leftOpen.join(', ')})` : ''}; git's bare repository as it is on disk (objects, index, refs, logs, hooks)`,
    },
    {
      suite: SUITE,
      name: 'store after waypoint gc, open (with the WAL and shared-memory files), vs shadow git after git gc',
      value: collected,
      unit: 'bytes',
      baseline: { name: 'git gc', value: shadowGc },
      ratio: collected / shadowGc,
      note: `database: rows ${report.database.rowsBytes} B, indexes ${report.database.indexBytes} B, free ${report.database.freeBytes} B, patches ${report.database.patches.bytes} B; largest: ${report.database.contents
        .slice(0, 4)
        .map((item) => `${item.name} ${item.bytes}`)
        .join(', ')}`,
    },
    {
      suite: SUITE,
      name: 'store after compress vs shadow git after git gc --aggressive',
      value: compressed,
      unit: 'bytes',
      baseline: { name: 'git gc --aggressive', value: shadowAggressive },
      ratio: compressed / shadowAggressive,
    },
  );

  // Undo of the last 20 turns, against git reset --hard + clean -fd in a checkout of the same
  // history, in interleaved rounds so a burst of load from elsewhere hits both alike.
  const target = replay.turns[commits - UNDO_TURNS]!;
  const checkout = join(dir, 'git-checkout');
  execFileSync('git', ['clone', '-q', history.repo, checkout]);
  const back = history.commits[commits - UNDO_TURNS]!;
  const last = history.commits[commits]!;
  // The floor: the same file changes made durable by plain file-system calls, in a third checkout.
  const floorTree = join(dir, 'floor-checkout');
  execFileSync('git', ['clone', '-q', history.repo, floorTree]);
  const floorJournals = join(dir, 'floor-journal');
  mkdirSync(floorJournals);
  const changes = floorChanges(history.repo, last, back);
  const waypointTimes: number[] = [];
  const gitTimes: number[] = [];
  const gitDurableTimes: number[] = [];
  const floorTimes: number[] = [];
  const safeFloorTimes: number[] = [];
  const nothingKeptTimes: number[] = [];
  let journalBytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Every round starts with the disk clean (what the previous round left synced, untimed), so no
    // fsync pays for another contender's unsynced writes.
    execFileSync('sync', ['-f', checkout]);
    let start = process.hrtime.bigint();
    const undone = await rewind({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, messageId: target.inputId, scope: 'both', cascade: true });
    waypointTimes.push(elapsed(start));
    journalBytes = Buffer.byteLength(JSON.stringify(undone.files!.files));
    await redo({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, rewindId: undone.files!.rewindId!, conversation: true });
    // The same undo with no file kept from the redo: every content written to a temp file and fsynced.
    keptFilesOf(replay.waypoint.store.location).clear();
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    const undoneAnew = await rewind({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, messageId: target.inputId, scope: 'both', cascade: true });
    nothingKeptTimes.push(elapsed(start));
    await redo({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, rewindId: undoneAnew.files!.rewindId!, conversation: true });
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    execFileSync('git', ['reset', '-q', '--hard', back], { cwd: checkout });
    execFileSync('git', ['clean', '-q', '-fd'], { cwd: checkout });
    gitTimes.push(elapsed(start));
    execFileSync('git', ['reset', '-q', '--hard', last], { cwd: checkout });
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    execFileSync('git', ['reset', '-q', '--hard', back], { cwd: checkout });
    execFileSync('git', ['clean', '-q', '-fd'], { cwd: checkout });
    execFileSync('sync', ['-f', checkout]);
    gitDurableTimes.push(elapsed(start));
    execFileSync('git', ['reset', '-q', '--hard', last], { cwd: checkout });
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    await durableFloor(floorTree, changes, floorJournals, journalBytes);
    floorTimes.push(elapsed(start));
    execFileSync('git', ['reset', '-q', '--hard', last], { cwd: floorTree });
    execFileSync('git', ['clean', '-q', '-fd'], { cwd: floorTree });
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    await durableFloor(floorTree, changes, floorJournals, journalBytes, { compareAndReplace: true });
    safeFloorTimes.push(elapsed(start));
    execFileSync('git', ['reset', '-q', '--hard', last], { cwd: floorTree });
    execFileSync('git', ['clean', '-q', '-fd'], { cwd: floorTree });
  }
  await replay.close();
  const undo = median(waypointTimes);
  const gitUndo = median(gitTimes);
  results.push(
    {
      suite: SUITE,
      name: `undo of ${UNDO_TURNS} turns (cascade, durable)`,
      value: undo,
      unit: 'ms',
      baseline: { name: 'git reset --hard + clean -fd', value: gitUndo },
      ratio: gitUndo / undo,
      goal: '≥ 2× faster',
      met: gitUndo / undo >= 2,
    },
    {
      suite: SUITE,
      name: `undo of ${UNDO_TURNS} turns with nothing kept (every content written anew)`,
      value: median(nothingKeptTimes),
      unit: 'ms',
      baseline: { name: 'git reset --hard + clean -fd', value: gitUndo },
      ratio: gitUndo / median(nothingKeptTimes),
      note: 'the kept files cleared before it: every content written to a temp file and fsynced',
    },
    {
      suite: SUITE,
      name: `undo of ${UNDO_TURNS} turns vs git made durable`,
      value: undo,
      unit: 'ms',
      baseline: { name: 'git reset --hard + clean -fd + sync -f', value: median(gitDurableTimes) },
      ratio: median(gitDurableTimes) / undo,
    },
    {
      suite: SUITE,
      name: `undo of ${UNDO_TURNS} turns vs the disk's floor`,
      value: undo,
      unit: 'ms',
      baseline: { name: 'the same changes by plain writes + fsyncs', value: median(floorTimes) },
      ratio: median(floorTimes) / undo,
      note: `${changes.length} changes; floor = each new content to a temp file + fsync and a ${journalBytes} B journal file + fsync, all at once in the thread pool, then the renames (${changes.filter((change) => change.from !== null).length} files renamed back, as the undo does) and unlinks, one fsync per directory`,
    },
    {
      suite: SUITE,
      name: `undo of ${UNDO_TURNS} turns vs the floor of a safe undo`,
      value: undo,
      unit: 'ms',
      baseline: { name: 'the same changes by compare-and-replace + fsyncs', value: median(safeFloorTimes) },
      ratio: median(safeFloorTimes) / undo,
      note:
        'the floor above, each path changed so that a save made meanwhile is never overwritten: looked at, taken aside by a rename, the new file linked in, its temp name and the aside file removed (git ratio at this floor: ' +
        `${(gitUndo / median(safeFloorTimes)).toFixed(2)}×)`,
    },
  );
  return results;
}

const suite: BenchSuite = { name: SUITE, run };
export default suite;

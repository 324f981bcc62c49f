/**
 * `UV_THREADPOOL_SIZE=16 tsx scripts/undo-profile.ts [rounds]`: the undo part of `npm run bench -- replay`
 * alone (same generated history and replay), printing each round's undo and git times, and the
 * rewind's phase marks when `WAYPOINT_REWIND_TIMING=1`. Run with `node --expose-gc --import tsx` to
 * have a full garbage collection before each undo, keeping V8's collections out of a comparison.
 * `UNDO_PERF_CONTROL=<control fifo>,<ack fifo>` turns on a `perf record -D -1 --control
 * fifo:<control fifo>,<ack fifo>` started around this process just for each undo, so its samples
 * (kernel stacks included) cover the undos alone. `UNDO_AB=1` sets `WAYPOINT_AB=1` in odd rounds
 * and clears it in even ones, and prints the medians of each half: code under test reads that
 * variable to compare two versions in the same minutes (the disk's speed here changes from minute
 * to minute, so runs minutes apart do not compare). `UNDO_TURN=<file>,<me>,<other>` takes turns
 * with another run of this script (another checkout's code, say): each round waits until `<file>`
 * holds `<me>`, then writes `<other>` into it — so two versions too different for one variable
 * alternate round by round all the same (start the one named in the file first or second, either
 * works; their set-ups overlap, their rounds never do). For iterating on the undo; the bench stays
 * the measurement of record.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectGarbage, redo, rewind } from '../src/operations/index.js';
import { buildGitHistory, random } from '../test/replay/git-history.js';
import { openReplay, type TurnMode } from '../test/replay/replay-driver.js';

const MODES: readonly TurnMode[] = ['tool', 'checkout', 'apply'];
const commits = 150;
const rounds = Number(process.argv[2] ?? 11);
const dir = mkdtempSync(join(tmpdir(), 'waypoint-undo-profile-'));
try {
  const history = buildGitHistory(dir, { seed: 150, commits, files: 2000, lockLines: 14000 });
  const replay = await openReplay(dir, history);
  const pickMode = random(151);
  for (let index = 1; index <= commits; index++) await replay.turn(MODES[Math.floor(pickMode() * MODES.length)]!);
  await replay.waypoint.blobs.compress();
  await replay.reopen();
  await collectGarbage({ waypoint: replay.waypoint }, {});
  await replay.reopen();
  const target = replay.turns[commits - 20]!;
  const checkout = join(dir, 'git-checkout');
  execFileSync('git', ['clone', '-q', history.repo, checkout]);
  const back = history.commits[commits - 20]!;
  const last = history.commits[commits]!;
  const undo: number[] = [];
  const profileTo = process.env.UNDO_CPU_PROFILE;
  const inspector = profileTo ? new Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  }
  const gitTimes: number[] = [];
  // perf's control fifo takes `enable` / `disable` and answers each on the ack fifo.
  const [control, ack] = (process.env.UNDO_PERF_CONTROL ?? '').split(',');
  const perfFds = control && ack ? { control: openSync(control, 'w'), ack: openSync(ack, 'r') } : null;
  const perf = (command: 'enable' | 'disable') => {
    if (!perfFds) return;
    writeSync(perfFds.control, `${command}\n`);
    readSync(perfFds.ack, Buffer.alloc(5), 0, 5, null);
  };
  const alternate = process.env.UNDO_AB === '1';
  const [turnFile, me, other] = (process.env.UNDO_TURN ?? '').split(',');
  const myTurn = async () => {
    if (turnFile && me) while (readFileSync(turnFile, 'utf8').trim() !== me) await sleep(20);
  };
  for (let round = 0; round < rounds; round++) {
    await myTurn();
    if (alternate) process.env.WAYPOINT_AB = round % 2 === 1 ? '1' : '';
    execFileSync('sync', ['-f', checkout]);
    (globalThis as { gc?: () => void }).gc?.();
    if (inspector) await inspector.post('Profiler.start');
    perf('enable');
    let start = process.hrtime.bigint();
    const undone = await rewind({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, messageId: target.inputId, scope: 'both', cascade: true });
    undo.push(Number(process.hrtime.bigint() - start) / 1e6);
    perf('disable');
    if (inspector) writeFileSync(`${profileTo}.${round}.cpuprofile`, JSON.stringify((await inspector.post('Profiler.stop')).profile));
    await redo({ waypoint: replay.waypoint }, { sessionId: replay.sessionId, rewindId: undone.files!.rewindId!, conversation: true });
    execFileSync('sync', ['-f', checkout]);
    start = process.hrtime.bigint();
    execFileSync('git', ['reset', '-q', '--hard', back], { cwd: checkout });
    execFileSync('git', ['clean', '-q', '-fd'], { cwd: checkout });
    gitTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
    execFileSync('git', ['reset', '-q', '--hard', last], { cwd: checkout });
    if (turnFile && other) writeFileSync(turnFile, other);
    process.stderr.write(`round ${round}: undo ${undo.at(-1)!.toFixed(1)} ms (${undone.files!.files.length} files), git ${gitTimes.at(-1)!.toFixed(1)} ms\n`);
  }
  const rank = (samples: number[], at: number) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length * at)]!;
  const median = (samples: number[]) => rank(samples, 0.5);
  process.stderr.write(`lower quartile: undo ${rank(undo, 0.25).toFixed(1)} ms, git ${rank(gitTimes, 0.25).toFixed(1)} ms\n`);
  process.stderr.write(
    `median: undo ${median(undo).toFixed(1)} ms, git ${median(gitTimes).toFixed(1)} ms, ratio ${(median(gitTimes) / median(undo)).toFixed(2)}\n`,
  );
  if (alternate) {
    const half = (parity: number) => undo.filter((_, round) => round % 2 === parity);
    for (const parity of [0, 1])
      process.stderr.write(
        `WAYPOINT_AB=${parity === 1 ? '1' : '(unset)'}: median ${median(half(parity)).toFixed(1)} ms, lower quartile ${rank(half(parity), 0.25).toFixed(1)} ms\n`,
      );
  }
  await replay.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
